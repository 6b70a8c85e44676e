import type { Domain } from './domain';
import { NEITHER } from './number-set';

/** The JavaScript type of a value as the operators tell them apart. */
export type Kind = 'undefined' | 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';

export function kindOf(value: unknown): Kind {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  return t === 'boolean' || t === 'number' || t === 'string' ? t : 'object';
}

/** The kinds of value a domain may hold. */
export function kindsOf(d: Domain): Set<Kind> {
  const kinds = new Set<Kind>();
  if (d.absent) kinds.add('undefined');
  if (d.finite !== undefined) {
    for (const v of d.finite) kinds.add(kindOf(v));
    return kinds;
  }
  if (d.null) kinds.add('null');
  if (d.booleans.true || d.booleans.false) kinds.add('boolean');
  if (d.number !== undefined && (d.number.nan || d.number.range !== undefined)) kinds.add('number');
  if (d.string) kinds.add('string');
  if (d.array) kinds.add('array');
  if (d.object) kinds.add('object');
  return kinds;
}

/** The part of the domain whose values have one of the `keep` kinds. */
export function restrict(d: Domain, keep: readonly Kind[]): Domain {
  const has = (k: Kind) => keep.includes(k);
  const finite = d.finite?.filter((v) => has(kindOf(v)));
  return {
    absent: d.absent && has('undefined'),
    null: d.null && has('null'),
    booleans: has('boolean') ? d.booleans : NEITHER,
    number: has('number') ? d.number : undefined,
    string: has('string') ? d.string : undefined,
    array: has('array') ? d.array : undefined,
    object: has('object') ? d.object : undefined,
    ...(finite !== undefined ? { finite } : {}),
  };
}

/** True when the domain holds some value of one of the kinds. */
export function mayBe(d: Domain, ...kinds: readonly Kind[]): boolean {
  const present = kindsOf(d);
  return kinds.some((k) => present.has(k));
}
