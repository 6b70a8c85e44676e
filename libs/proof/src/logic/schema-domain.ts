import type { JsonSchema } from '../verdict';
import {
  ANY_JSON,
  arraySet,
  domain,
  EMPTY,
  isEmpty,
  stringSet,
  withAbsent,
  type ArraySet,
  type Domain,
  type ObjectSet,
} from './domain';
import { admits, fromValues } from './domain-values';
import { BOTH, makeRange, NEITHER, type NumberSet } from './number-set';
import { valueKey } from './value-key';

// A JSON Schema conjunction read as a domain. Keywords outside the subset below are ignored, which
// only widens the domain (sound): anyOf, oneOf, not, if/then/else, pattern, format, $ref, ...

type SchemaObject = Readonly<Record<string, unknown>>;

const MAX_SCHEMA_DEPTH = 32;
const TYPE_NAMES = new Set(['null', 'boolean', 'number', 'integer', 'string', 'array', 'object']);
const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);
const isObject = (v: unknown): v is SchemaObject => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * The domain of every JSON value valid against ALL the schemas (an over-approximation: keywords
 * it does not read leave it wider). Reads type, enum, const, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, multipleOf 1, minLength, maxLength, minItems, maxItems, items (one schema),
 * properties, required, additionalProperties and allOf.
 */
export function domainOf(schemas: readonly JsonSchema[]): Domain {
  return fromSchemas(schemas, 0);
}

function fromSchemas(schemas: readonly unknown[], depth: number): Domain {
  if (depth > MAX_SCHEMA_DEPTH) return ANY_JSON;
  const all = conjuncts(schemas, depth);
  if (all === 'never') return EMPTY;
  if (all.length === 0) return ANY_JSON;
  const types = typeNames(all);
  const structure = domain({
    null: types.has('null'),
    booleans: types.has('boolean') ? BOTH : NEITHER,
    number: types.has('number') || types.has('integer') ? numbers(all, !types.has('number')) : undefined,
    string: types.has('string') ? strings(all) : undefined,
    array: types.has('array') ? arrays(all, depth) : undefined,
    object: types.has('object') ? objects(all, depth) : undefined,
  });
  const listed = enumerated(all);
  return listed === undefined ? structure : fromValues(listed.filter((v) => admits(structure, v)));
}

/** The schemas and their `allOf` members, recursively; 'never' when one of them is `false`. */
function conjuncts(schemas: readonly unknown[], depth: number): SchemaObject[] | 'never' {
  const out: SchemaObject[] = [];
  const pending = schemas.map((s) => ({ s, d: depth }));
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === undefined) break;
    if (next.s === false) return 'never';
    if (!isObject(next.s)) continue;
    out.push(next.s);
    const members = next.s.allOf;
    const d = next.d + 1;
    if (Array.isArray(members) && d <= MAX_SCHEMA_DEPTH) pending.push(...members.map((s) => ({ s, d })));
  }
  return out;
}

function typeNames(all: readonly SchemaObject[]): Set<string> {
  let allowed = new Set(TYPE_NAMES);
  for (const s of all) {
    const t = s.type;
    const names = typeof t === 'string' ? [t] : Array.isArray(t) ? t : undefined;
    if (names === undefined || !names.every((n) => typeof n === 'string' && TYPE_NAMES.has(n))) continue;
    const listed = new Set<string>(names);
    // "number" admits integers, so number ∧ integer is integer.
    if (listed.has('number')) listed.add('integer');
    allowed = new Set([...allowed].filter((n) => listed.has(n)));
  }
  return allowed;
}

function numbers(all: readonly SchemaObject[], integerOnly: boolean): NumberSet | undefined {
  let min = -Infinity;
  let minOpen = false;
  let max = Infinity;
  let maxOpen = false;
  let integer = integerOnly;
  for (const s of all) {
    const lo = num(s.minimum);
    const hi = num(s.maximum);
    const xlo = num(s.exclusiveMinimum);
    const xhi = num(s.exclusiveMaximum);
    if (lo !== undefined && lo > min) [min, minOpen] = [lo, false];
    if (xlo !== undefined && xlo >= min) [min, minOpen] = [xlo, true];
    if (hi !== undefined && hi < max) [max, maxOpen] = [hi, false];
    if (xhi !== undefined && xhi <= max) [max, maxOpen] = [xhi, true];
    if (s.multipleOf === 1) integer = true;
  }
  const range = makeRange(min, max, integer, minOpen, maxOpen);
  return range === undefined ? undefined : { range, nan: false };
}

function strings(all: readonly SchemaObject[]) {
  const mins = all.map((s) => num(s.minLength) ?? 0);
  const maxs = all.map((s) => num(s.maxLength) ?? Infinity);
  // Lengths are counted in code points by the schema, in UTF-16 units by JavaScript (1 or 2 each).
  return stringSet(Math.max(0, ...mins), 2 * Math.min(Infinity, ...maxs));
}

function arrays(all: readonly SchemaObject[], depth: number): ArraySet | undefined {
  const min = Math.max(0, ...all.map((s) => num(s.minItems) ?? 0));
  const max = Math.min(Infinity, ...all.map((s) => num(s.maxItems) ?? Infinity));
  const itemSchemas = all.map((s) => s.items).filter((i) => typeof i === 'boolean' || isObject(i));
  return arraySet(min, max, itemSchemas.length === 0 ? ANY_JSON : fromSchemas(itemSchemas, depth + 1));
}

function propertySchemas(s: SchemaObject): SchemaObject | undefined {
  return isObject(s.properties) ? s.properties : undefined;
}

/** `additionalProperties` of a schema, unless `patternProperties` may claim the key instead. */
function additional(s: SchemaObject): unknown {
  return s.patternProperties === undefined ? s.additionalProperties : undefined;
}

function objects(all: readonly SchemaObject[], depth: number): ObjectSet | undefined {
  const requiredOf = (s: SchemaObject): unknown[] => (Array.isArray(s.required) ? s.required : []);
  const required = new Set(all.flatMap(requiredOf).filter((k): k is string => typeof k === 'string'));
  const named = new Set([...required, ...all.flatMap((s) => Object.keys(propertySchemas(s) ?? {}))]);
  const properties = new Map<string, Domain>();
  for (const key of named) {
    const constraints = all.flatMap((s) => {
      const props = propertySchemas(s);
      if (props !== undefined && hasOwn(props, key)) return [props[key]];
      const extra = additional(s);
      return extra === undefined ? [] : [extra];
    });
    const value = fromSchemas(constraints, depth + 1);
    if (required.has(key) && isEmpty(value)) return undefined;
    properties.set(key, required.has(key) ? value : withAbsent(value));
  }
  const extras = all.map(additional).filter((a) => a !== undefined);
  const others = fromSchemas(extras, depth + 1);
  return isEmpty(others) ? { properties } : { properties, others };
}

/** The values `enum` and `const` allow together (deep equality), or undefined when neither appears. */
function enumerated(all: readonly SchemaObject[]): unknown[] | undefined {
  let values: unknown[] | undefined;
  for (const s of all) {
    const lists = [...(hasOwn(s, 'const') ? [[s.const]] : []), ...(Array.isArray(s.enum) ? [s.enum] : [])];
    for (const list of lists) {
      if (values === undefined) {
        values = list;
        continue;
      }
      const keys = new Set(list.map(valueKey));
      values = values.filter((v) => keys.has(valueKey(v)));
    }
  }
  return values;
}
