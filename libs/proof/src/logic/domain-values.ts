import {
  ANY,
  arraySet,
  domain,
  EMPTY,
  FINITE_LIMIT,
  stringSet,
  type ArraySet,
  type Domain,
  type ObjectSet,
} from './domain';
import { distinctValues, valueKey } from './value-key';
import { makeRange, outcomes, setHas, type NumberSet } from './number-set';

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function numbersOf(values: readonly number[]): NumberSet | undefined {
  if (values.length === 0) return undefined;
  const real = values.filter((v) => !Number.isNaN(v));
  const nan = real.length < values.length;
  if (real.length === 0) return { nan };
  const integer = real.every((v) => Number.isInteger(v) || !Number.isFinite(v));
  return { range: makeRange(Math.min(...real), Math.max(...real), integer), nan };
}

function arraysOf(values: readonly unknown[][], depth: number): ArraySet | undefined {
  if (values.length === 0) return undefined;
  const lengths = values.map((a) => a.length);
  const items = describe(values.flat(), depth + 1);
  return arraySet(Math.min(...lengths), Math.max(...lengths), items);
}

function objectsOf(values: readonly Record<string, unknown>[], depth: number): ObjectSet | undefined {
  if (values.length === 0) return undefined;
  const keys = new Set(values.flatMap((o) => Object.keys(o)));
  const properties = new Map<string, Domain>();
  for (const key of keys) {
    properties.set(
      key,
      describe(
        values.map((o) => (hasOwn(o, key) ? o[key] : undefined)),
        depth + 1,
      ),
    );
  }
  return { properties };
}

/** The domain of exactly `values` (`undefined` among them sets `absent`). */
function describe(values: readonly unknown[], depth: number): Domain {
  const distinct = distinctValues(values);
  const present = distinct.filter((v) => v !== undefined);
  if (depth > 64) return domain({ absent: present.length < distinct.length });
  const strings = present.filter((v): v is string => typeof v === 'string').map((s) => s.length);
  const bools = present.filter((v): v is boolean => typeof v === 'boolean');
  const d: Domain = {
    absent: present.length < distinct.length,
    null: present.includes(null),
    booleans: outcomes(bools.includes(true), bools.includes(false)),
    number: numbersOf(present.filter((v): v is number => typeof v === 'number')),
    string: strings.length === 0 ? undefined : stringSet(Math.min(...strings), Math.max(...strings)),
    array: arraysOf(
      present.filter((v): v is unknown[] => Array.isArray(v)),
      depth,
    ),
    object: objectsOf(present.filter(isRecord), depth),
  };
  return present.length <= FINITE_LIMIT ? { ...d, finite: present } : d;
}

/** The domain holding exactly the given values (JSON values, NaN, infinities, `undefined`). */
export function fromValues(values: readonly unknown[]): Domain {
  return values.length === 0 ? EMPTY : describe(values, 0);
}

/** The domain holding exactly `value`. */
export function constDomain(value: unknown): Domain {
  return fromValues([value]);
}

/**
 * Whether `value` may belong to the domain (never false for a member; may be true for a value
 * outside it). Used to filter `enum` lists by the other keywords of a schema.
 */
export function admits(d: Domain, value: unknown, depth = 0): boolean {
  if (value === undefined) return d.absent;
  if (d.finite !== undefined) return d.finite.some((v) => valueKey(v) === valueKey(value));
  if (depth > 64) return true;
  if (value === null) return d.null;
  if (typeof value === 'boolean') return value ? d.booleans.true : d.booleans.false;
  if (typeof value === 'number') return d.number !== undefined && setHas(d.number, value);
  if (typeof value === 'string') {
    return d.string !== undefined && d.string.minLength <= value.length && value.length <= d.string.maxLength;
  }
  if (Array.isArray(value)) return admitsArray(d.array, value, depth);
  return isRecord(value) && admitsObject(d.object, value, depth);
}

function admitsArray(a: ArraySet | undefined, value: readonly unknown[], depth: number): boolean {
  if (a === undefined || value.length < a.minItems || value.length > a.maxItems) return false;
  return value.every((item) => admits(a.items, item, depth + 1));
}

function admitsObject(o: ObjectSet | undefined, value: Record<string, unknown>, depth: number): boolean {
  if (o === undefined) return false;
  for (const [key, d] of o.properties) {
    if (!admits(d, hasOwn(value, key) ? value[key] : undefined, depth + 1)) return false;
  }
  const others = o.others;
  const admitted = (key: string) =>
    o.properties.has(key) || (others !== undefined && admits(others, value[key], depth + 1));
  return Object.keys(value).every(admitted);
}

/** The same set without any `finite` list, all the way down: forces the interval reasoning. */
export function forgetFinite(d: Domain, depth = 0): Domain {
  if (depth > 16 || d === ANY) return d;
  const { finite: _finite, ...rest } = d;
  const array = d.array && { ...d.array, items: forgetFinite(d.array.items, depth + 1) };
  const object = d.object && {
    properties: new Map([...d.object.properties].map(([k, v]) => [k, forgetFinite(v, depth + 1)] as const)),
    ...(d.object.others ? { others: forgetFinite(d.object.others, depth + 1) } : {}),
  };
  return { ...rest, array, object };
}
