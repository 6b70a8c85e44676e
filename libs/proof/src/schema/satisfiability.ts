import type { Finding, JsonSchema, Verdict } from '../verdict';
import { conflictsOf } from './conflicts';
import { attemptWitness } from './witness';

/** Whether some value satisfies every schema of a conjunction, and the evidence either way. */
export interface Satisfiability {
  /** `refuted`: no value can; `proven`: `witness` does; `unknown`: neither was shown statically. */
  readonly verdict: Verdict;
  /** Why not `proven`: the conflicts (refuted) or what could not be decided (unknown); `[]` when proven. */
  readonly findings: Finding[];
  /** A value every schema accepts (Ajv-verified); present exactly when the verdict is `proven`. */
  readonly witness?: unknown;
}

/**
 * The verdict on a conjunction of JSON Schemas: `refuted` when {@link conflictsOf} proves it
 * empty, `proven` when a witness passes every schema, `unknown` otherwise, with findings naming
 * the keywords that stood in the way. `pointer` and `labels` are as for `conflictsOf`.
 */
export function satisfiability(
  schemas: readonly JsonSchema[],
  pointer = '',
  labels?: readonly string[],
): Satisfiability {
  const conflicts = conflictsOf(schemas, pointer, labels);
  if (conflicts.length > 0) return { verdict: 'refuted', findings: conflicts };
  const attempt = attemptWitness(schemas, pointer, labels);
  return attempt.found
    ? { verdict: 'proven', findings: [], witness: attempt.value }
    : { verdict: 'unknown', findings: attempt.findings };
}
