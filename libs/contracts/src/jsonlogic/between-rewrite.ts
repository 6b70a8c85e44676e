/** One `between` rewritten, with where it sat relative to the rule. */
export interface BetweenRewrite {
  path: PropertyKey[];
  from: unknown;
}

/**
 * Rewrites the legacy `{"between": [x, lo, hi]}` operator (inclusive on both ends) into the
 * standard `{"<=": [lo, x, hi]}`, anywhere in a rule. Returns a new rule; the input is untouched.
 * A `between` without exactly three arguments is left alone for the validator to reject.
 */
export function rewriteBetween(
  rule: unknown,
  rewrites: BetweenRewrite[] = [],
  path: PropertyKey[] = [],
): unknown {
  if (rule === null || typeof rule !== 'object') return rule;
  if (Array.isArray(rule)) return rule.map((child, i) => rewriteBetween(child, rewrites, [...path, i]));
  const record = rule as Record<string, unknown>;
  const keys = Object.keys(record);
  if (
    keys.length === 1 &&
    keys[0] === 'between' &&
    Array.isArray(record.between) &&
    record.between.length === 3
  ) {
    rewrites.push({ path, from: rule });
    const [value, low, high] = record.between.map((arg, i) =>
      rewriteBetween(arg, rewrites, [...path, 'between', i]),
    );
    return { '<=': [low, value, high] };
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = rewriteBetween(record[key], rewrites, [...path, key]);
  return out;
}
