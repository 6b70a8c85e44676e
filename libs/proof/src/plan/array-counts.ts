import type { TaskEnvelope } from '@flex/contracts';

/**
 * Input knobs that parametrize how many items a node produces for an array facet: the contract's
 * count is pushed into them, so an agent is asked for what the contract needs, not what the
 * objective text happens to say (`planKnobs.variantCount`: "produce exactly variantCount variants").
 */
export const COUNT_KNOBS: Readonly<Record<string, { readonly facet: string; readonly field: string }>> = {
  copyVariants: { facet: 'planKnobs', field: 'variantCount' },
};

export interface Bounds {
  readonly min?: number;
  readonly max?: number;
}

type Rule = Record<string, unknown>;
const isRule = (v: unknown): v is Rule =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1;
const int = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;

/**
 * The item count the contract allows for array property `key`: the caller schema's minItems /
 * maxItems, narrowed by hard constraints of the form `key.length <op> N` (alone or under a top-level
 * `and`). An empty range (min > max) is returned as is: the proof refutes it.
 */
export function contractLength(envelope: TaskEnvelope, key: string, callerSchema: unknown): Bounds {
  const schema = (callerSchema && typeof callerSchema === 'object' ? callerSchema : {}) as Record<
    string,
    unknown
  >;
  let min = int(schema.minItems);
  let max = int(schema.maxItems);
  for (const c of envelope.outputContract.constraints ?? []) {
    if (c.level !== 'hard') continue;
    const rule = ruleLength(c.expr, key);
    if (rule.min !== undefined) min = Math.max(min ?? 0, rule.min);
    if (rule.max !== undefined) max = Math.min(max ?? Infinity, rule.max);
  }
  return {
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined && Number.isFinite(max) ? { max } : {}),
  };
}

/** The bounds a rule of the form `key.length <op> N` (alone or under a top-level `and`) puts on `key`. */
export function ruleLength(rule: unknown, key: string): Bounds {
  let min: number | undefined;
  let max: number | undefined;
  for (const [op, n] of lengthComparisons(rule, `${key}.length`)) {
    if (op === '==' || op === '===' || op === '>=') min = Math.max(min ?? 0, n);
    if (op === '==' || op === '===' || op === '<=') max = Math.min(max ?? Infinity, n);
    if (op === '>') min = Math.max(min ?? 0, n + 1);
    if (op === '<') max = Math.min(max ?? Infinity, n - 1);
  }
  return { ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

const FLIP: Record<string, string> = { '==': '==', '===': '===', '>=': '<=', '<=': '>=', '>': '<', '<': '>' };

/** `[op, N]` for each `{op: [{var: path}, N]}` (either side) in `rule` or its top-level `and`. */
function lengthComparisons(rule: unknown, path: string): Array<[string, number]> {
  if (!isRule(rule)) return [];
  const [op, args] = Object.entries(rule)[0];
  if (op === 'and' && Array.isArray(args)) return args.flatMap((a) => lengthComparisons(a, path));
  if (!(op in FLIP) || !Array.isArray(args) || args.length !== 2) return [];
  const isPath = (a: unknown) => isRule(a) && (a.var === path || (Array.isArray(a.var) && a.var[0] === path));
  const [left, right] = args;
  if (isPath(left) && int(right) !== undefined) return [[op, right as number]];
  if (isPath(right) && int(left) !== undefined) return [[FLIP[op], left as number]];
  return [];
}

/** The count the caller asked for in policies or inputs, when it is a sane integer. */
export function requestedCount(
  envelope: TaskEnvelope,
  envelopeValues: Readonly<Record<string, unknown>>,
): number | undefined {
  const topology = envelope.policies?.planner?.topology?.variantCount;
  const knobs = envelopeValues.planKnobs as { variantCount?: unknown } | undefined;
  const candidates = [topology, envelope.inputs?.variantCount, knobs?.variantCount];
  return candidates.map(int).find((n) => n !== undefined && n >= 1 && n <= 50);
}

/**
 * How many items to ask for: the requested count when the contract allows it, else the nearest
 * bound; the contract's lower bound when nothing was requested; undefined when neither says.
 */
export function chooseCount(bounds: Bounds, requested: number | undefined): number | undefined {
  const lo = Math.max(bounds.min ?? 1, 1);
  const hi = bounds.max ?? Infinity;
  if (lo > hi) return undefined;
  if (requested !== undefined) return Math.min(Math.max(requested, lo), hi);
  return bounds.min !== undefined || bounds.max !== undefined ? lo : undefined;
}

/** Lanes needed when one call produces at most `perCall` items. */
export const lanesFor = (count: number, perCall: number | undefined): number =>
  perCall === undefined || perCall < 1 ? 1 : Math.max(1, Math.ceil(count / perCall));

/** `count` split over `lanes` as evenly as possible, earlier lanes taking the remainder (7 over 2 → 4, 3). */
export function splitCount(count: number, lanes: number): number[] {
  const base = Math.floor(count / lanes);
  return Array.from({ length: lanes }, (_, i) => base + (i < count % lanes ? 1 : 0));
}
