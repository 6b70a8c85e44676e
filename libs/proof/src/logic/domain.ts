import { ANY_NUMBER, BOTH, FULL_RANGE, NEITHER, type NumberSet, type Outcomes } from './number-set';

/** Possible string lengths, in UTF-16 code units (what JavaScript's `length` counts). */
export interface StringSet {
  readonly minLength: number;
  readonly maxLength: number;
}

/** Possible arrays: a length interval and one domain covering every item. */
export interface ArraySet {
  readonly minItems: number;
  readonly maxItems: number;
  readonly items: Domain;
}

/**
 * Possible objects. A property's domain has `absent` set when the property may be missing;
 * `others` covers every property not named (undefined: there are none).
 */
export interface ObjectSet {
  readonly properties: ReadonlyMap<string, Domain>;
  readonly others?: Domain;
}

/**
 * An abstract value: a set of values covering everything a JSONLogic expression (or a piece of
 * data) may be. Each component over-approximates the values of one type; `absent` stands for
 * `undefined` (a missing property or operand). When `finite` is set the non-undefined values are
 * exactly those listed, and the components describe them too.
 */
export interface Domain {
  readonly absent: boolean;
  readonly null: boolean;
  readonly booleans: Outcomes;
  readonly number?: NumberSet;
  readonly string?: StringSet;
  readonly array?: ArraySet;
  readonly object?: ObjectSet;
  readonly finite?: readonly unknown[];
}

/** At most this many values are listed in `finite`; larger sets keep only their components. */
export const FINITE_LIMIT = 64;

export const EMPTY: Domain = { absent: false, null: false, booleans: NEITHER };
export const ABSENT: Domain = { absent: true, null: false, booleans: NEITHER, finite: [] };

function buildAny(): Domain {
  // Built mutable, then tied into a cycle: the items of any array, and any property, are ANY again.
  const array: { -readonly [K in keyof ArraySet]: ArraySet[K] } = {
    minItems: 0,
    maxItems: Infinity,
    items: EMPTY,
  };
  const object: { properties: ReadonlyMap<string, Domain>; others: Domain } = {
    properties: new Map(),
    others: EMPTY,
  };
  const string: StringSet = { minLength: 0, maxLength: Infinity };
  const any: Domain = { absent: true, null: true, booleans: BOTH, number: ANY_NUMBER, string, array, object };
  array.items = any;
  object.others = any;
  return any;
}

/** Every value an expression can produce, `undefined` and NaN included (self-referential). */
export const ANY: Domain = buildAny();

/** Every JSON value (what a schema without constraints admits). */
export const ANY_JSON: Domain = { ...ANY, absent: false, number: { range: FULL_RANGE, nan: false } };

export function domain(parts: Partial<Domain>): Domain {
  return { ...EMPTY, ...parts };
}

/** True when the domain holds no value at all, not even `undefined`. */
export function isEmpty(d: Domain): boolean {
  return !d.absent && !hasValues(d);
}

/** True when the domain holds some value other than `undefined`. */
export function hasValues(d: Domain): boolean {
  if (d.finite !== undefined) return d.finite.length > 0;
  const numbers = d.number !== undefined && (d.number.nan || d.number.range !== undefined);
  const structured = d.string !== undefined || d.array !== undefined || d.object !== undefined;
  return d.null || d.booleans.true || d.booleans.false || numbers || structured;
}

export function withAbsent(d: Domain, absent = true): Domain {
  return d.absent === absent ? d : { ...d, absent };
}

export function booleanDomain(o: Outcomes): Domain {
  const finite = [...(o.true ? [true] : []), ...(o.false ? [false] : [])];
  return domain({ booleans: o, finite });
}

export function stringSet(minLength: number, maxLength: number): StringSet | undefined {
  const lo = Math.max(0, Math.ceil(minLength));
  const hi = Math.floor(maxLength);
  return lo <= hi ? { minLength: lo, maxLength: hi } : undefined;
}

/** An array set, or undefined when no array fits (an impossible item with a required length). */
export function arraySet(minItems: number, maxItems: number, items: Domain): ArraySet | undefined {
  const lo = Math.max(0, Math.ceil(minItems));
  const hi = isEmpty(items) ? Math.min(0, maxItems) : Math.floor(maxItems);
  if (lo > hi) return undefined;
  return { minItems: lo, maxItems: hi, items: hi === 0 ? EMPTY : items };
}

/** The value of property `key` of an object in the set, `absent` included when it may be missing. */
export function propertyOf(o: ObjectSet, key: string): Domain {
  const named = o.properties.get(key);
  if (named !== undefined) return named;
  return o.others === undefined ? ABSENT : withAbsent(o.others);
}
