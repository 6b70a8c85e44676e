/**
 * A canonical text for a value, equal for deep-equal JSON values whatever their key order (as
 * JSON Schema's `enum` and `const` compare them). NaN, the infinities and `undefined` get their own
 * keys; -0 shares 0's, as JSON Schema equality has it.
 */
export function valueKey(value: unknown): string {
  if (value === undefined) return 'u';
  if (value === null) return 'z';
  if (typeof value === 'number') return `n${Object.is(value, -0) ? '0' : String(value)}`;
  if (typeof value === 'string') return `s${JSON.stringify(value)}`;
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${valueKey(record[k])}`);
    return `{${entries.join(',')}}`;
  }
  return `?${typeof value}`;
}

/** `values` without deep-equal repeats, first occurrence kept. */
export function distinctValues(values: readonly unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const key = valueKey(v);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A JSON primitive (or undefined/NaN): compared by value, never by reference. */
export function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}
