/**
 * A string two JSON values share exactly when JSON Schema calls them equal (`enum`, `const`,
 * `uniqueItems`): object keys sorted, `-0` written as `0`, arrays in order.
 */
export function jsonKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(jsonKey).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${jsonKey((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** The values without repeats (JSON equality), in first-seen order. */
export function distinctValues(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = jsonKey(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
