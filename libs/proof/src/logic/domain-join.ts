import {
  ANY,
  EMPTY,
  FINITE_LIMIT,
  hasValues,
  isEmpty,
  propertyOf,
  type ArraySet,
  type Domain,
  type ObjectSet,
  type StringSet,
} from './domain';
import { valueKey } from './value-key';
import { eitherOutcome, joinNumbers, type NumberSet } from './number-set';

/** The listed values of a domain: its `finite` list, `[]` when it holds none, else undefined. */
export function listedValues(d: Domain): readonly unknown[] | undefined {
  if (d.finite !== undefined) return d.finite;
  return hasValues(d) ? undefined : [];
}

function joinFinite(a: Domain, b: Domain): readonly unknown[] | undefined {
  const left = listedValues(a);
  const right = listedValues(b);
  if (left === undefined || right === undefined) return undefined;
  const seen = new Set(left.map(valueKey));
  const union = [...left, ...right.filter((v) => !seen.has(valueKey(v)))];
  return union.length <= FINITE_LIMIT ? union : undefined;
}

function joinStrings(a?: StringSet, b?: StringSet): StringSet | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { minLength: Math.min(a.minLength, b.minLength), maxLength: Math.max(a.maxLength, b.maxLength) };
}

function joinArrays(a?: ArraySet, b?: ArraySet): ArraySet | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const minItems = Math.min(a.minItems, b.minItems);
  return { minItems, maxItems: Math.max(a.maxItems, b.maxItems), items: join(a.items, b.items) };
}

function joinObjects(a?: ObjectSet, b?: ObjectSet): ObjectSet | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const properties = new Map<string, Domain>();
  for (const key of new Set([...a.properties.keys(), ...b.properties.keys()])) {
    properties.set(key, join(propertyOf(a, key), propertyOf(b, key)));
  }
  const others = a.others && b.others ? join(a.others, b.others) : (a.others ?? b.others);
  return others === undefined ? { properties } : { properties, others };
}

/** The smallest domain this lattice can express that holds every value of `a` and of `b`. */
export function join(a: Domain, b: Domain): Domain {
  if (a === b || isEmpty(b)) return a;
  if (isEmpty(a)) return b;
  if (a === ANY || b === ANY) return ANY;
  const finite = joinFinite(a, b);
  const joined: Domain = {
    absent: a.absent || b.absent,
    null: a.null || b.null,
    booleans: eitherOutcome(a.booleans, b.booleans),
    number: joinNumbers(a.number, b.number),
    string: joinStrings(a.string, b.string),
    array: joinArrays(a.array, b.array),
    object: joinObjects(a.object, b.object),
  };
  return finite === undefined ? joined : { ...joined, finite };
}

export function joinAll(domains: readonly Domain[]): Domain {
  return domains.reduce(join, EMPTY);
}

function widenNumbers(prev?: NumberSet, next?: NumberSet): NumberSet | undefined {
  if (prev?.range === undefined || next?.range === undefined) return next;
  const p = prev.range;
  const n = next.range;
  const min = n.min < p.min ? -Infinity : n.min;
  const max = n.max > p.max ? Infinity : n.max;
  const range = { ...n, min, max, minOpen: n.minOpen && min === n.min, maxOpen: n.maxOpen && max === n.max };
  return { range, nan: next.nan };
}

function widenArrays(prev: ArraySet | undefined, next: ArraySet | undefined, depth: number) {
  if (prev === undefined || next === undefined) return next;
  const maxItems = next.maxItems > prev.maxItems ? Infinity : next.maxItems;
  return { minItems: next.minItems, maxItems, items: widen(prev.items, next.items, depth + 1) };
}

const ANY_OBJECT: ObjectSet = { properties: new Map(), others: ANY };

/**
 * A domain holding `next` (a join that includes `prev`) with every bound that grew pushed to
 * infinity and every changed object forgotten, so a chain of widenings stops growing: what lets
 * `reduce` over long arrays terminate.
 */
export function widen(prev: Domain, next: Domain, depth = 0): Domain {
  if (next === ANY || sameDomain(prev, next)) return next;
  if (depth > 4) return ANY;
  const { finite: _dropped, ...rest } = next;
  const grew = next.string && prev.string && next.string.maxLength > prev.string.maxLength;
  const string = grew && next.string ? { ...next.string, maxLength: Infinity } : next.string;
  const object = next.object === undefined ? undefined : ANY_OBJECT;
  const number = widenNumbers(prev.number, next.number);
  return { ...rest, number, string, array: widenArrays(prev.array, next.array, depth), object };
}

/** Structural equality of two domains (conservative: false when unsure). */
export function sameDomain(a: Domain, b: Domain): boolean {
  if (a === b) return true;
  if (a === ANY || b === ANY) return false;
  const left = signature(a, 0);
  return left !== undefined && left === signature(b, 0);
}

const numbersAsText = (_key: string, v: unknown): unknown => (typeof v === 'number' ? String(v) : v);

function signature(d: Domain, depth: number): string | undefined {
  if (d === ANY) return '*';
  if (depth > 8) return undefined;
  const nested: Domain[] = [];
  if (d.array) nested.push(d.array.items);
  if (d.object) nested.push(...d.object.properties.values(), ...(d.object.others ? [d.object.others] : []));
  const inner = nested.map((n) => signature(n, depth + 1));
  if (inner.some((x) => x === undefined)) return undefined;
  const shape = [
    d.absent,
    d.null,
    d.booleans,
    d.number ?? null,
    d.string ?? null,
    d.finite === undefined ? null : d.finite.map(valueKey).sort(),
    d.array ? [d.array.minItems, d.array.maxItems] : null,
    d.object ? [[...d.object.properties.keys()], d.object.others !== undefined] : null,
    inner,
  ];
  return JSON.stringify(shape, numbersAsText);
}
