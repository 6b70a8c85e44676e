/**
 * The three values a static proof can reach (DESIGN §8): `proven` holds for every value the
 * domain admits, `refuted` for none, `unknown` when Flex cannot decide statically (runtime checks
 * and repair decide then).
 */
export type Verdict = 'proven' | 'refuted' | 'unknown';

/** A JSON Schema fragment as the proof reads it: an object or a boolean schema. */
export type JsonSchema = Readonly<Record<string, unknown>> | boolean;

/** Why a verdict is not `proven`: the JSON pointer, the keywords or operators involved, a sentence. */
export interface Finding {
  /** JSON pointer into the value the proof is about (`/copyVariants/0/body`), `''` for the root. */
  readonly pointer: string;
  /** The schema keywords (`minItems`, `maxItems`) or JSONLogic operators (`map`) involved. */
  readonly keywords: readonly string[];
  readonly message: string;
}

/** The combined verdict of several obligations that must all hold: refuted wins, then unknown. */
export function allOf(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.includes('refuted')) return 'refuted';
  return verdicts.includes('unknown') ? 'unknown' : 'proven';
}
