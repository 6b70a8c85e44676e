import fc from 'fast-check';

// Random schemas over the keyword subset domainOf reads, and values shaped after a schema (mostly
// valid: callers filter them with Ajv).

export type Schema = Record<string, unknown>;
const KEYS = ['a', 'b', 'c'] as const;
// Extra keys an open object may carry, some chosen to trip conversions (`toString`, `indexOf`).
const EXTRA_KEYS = ['x', 'toString', 'indexOf', 'length', '0'];

const bound = fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constantFrom(0.5, 0.8, 1.5));
const count = fc.integer({ min: 0, max: 4 });

/** Small literals: around the schema bounds, and texts that convert to numbers or not. */
export const scalarLiteral = fc.oneof(
  fc.integer({ min: -3, max: 6 }),
  fc.constantFrom<unknown>(0.5, 0.8, -0.5, '', 'a', 'ab', '1', ' 2 ', 'abc', true, false, null),
);

const compoundLiteral = fc.oneof(
  scalarLiteral,
  fc.array(scalarLiteral, { maxLength: 2 }),
  fc.dictionary(fc.constantFrom('a', 'b'), scalarLiteral, { maxKeys: 2 }),
);

const ordered = (arb: fc.Arbitrary<number>) => fc.tuple(arb, arb).map(([x, y]) => (x <= y ? [x, y] : [y, x]));
/** `{ [key]: value }` most of the time, `{}` otherwise. */
const optional = <T>(key: string, arb: fc.Arbitrary<T>) =>
  fc.option(arb, { nil: undefined, freq: 3 }).map((v) => (v === undefined ? {} : { [key]: v }));
const constantOptional = (key: string, value: number) => optional(key, fc.constant(value));

const numberSchema = fc
  .tuple(fc.constantFrom('number', 'integer'), ordered(bound), fc.boolean(), fc.boolean())
  .chain(([type, [lo, hi], openLo, openHi]) =>
    fc
      .tuple(
        constantOptional(openLo ? 'exclusiveMinimum' : 'minimum', lo),
        constantOptional(openHi ? 'exclusiveMaximum' : 'maximum', hi),
        optional('minimum', bound),
        optional('multipleOf', fc.constant(1)),
      )
      .map(([low, high, extra, multiple]) => ({ type, ...extra, ...low, ...high, ...multiple })),
  );
const lengths = (min: string, max: string) =>
  ordered(count)
    .chain(([lo, hi]) => fc.tuple(constantOptional(min, lo), constantOptional(max, hi)))
    .map(([a, b]) => ({ ...a, ...b }));
const scalarSchema: fc.Arbitrary<Schema> = fc.oneof(
  numberSchema,
  lengths('minLength', 'maxLength').map((l) => ({ type: 'string', ...l })),
  fc.constantFrom<Schema>(
    { type: 'boolean' },
    { type: 'null' },
    { type: ['string', 'null'] },
    { type: ['number', 'string'] },
    {},
  ),
  fc.record({
    enum: fc.uniqueArray(scalarLiteral, { minLength: 1, maxLength: 4, selector: JSON.stringify }),
  }),
  fc.record({
    enum: fc.uniqueArray(compoundLiteral, { minLength: 1, maxLength: 3, selector: JSON.stringify }),
  }),
  fc.record({ const: scalarLiteral }),
);

const schemas = fc.letrec<{ schema: Schema; array: Schema; object: Schema; allOf: Schema }>((tie) => ({
  schema: fc.oneof(
    { maxDepth: 3, depthSize: 'small' },
    scalarSchema,
    tie('array'),
    tie('object'),
    tie('allOf'),
  ),
  array: fc
    .tuple(lengths('minItems', 'maxItems'), optional('items', tie('schema')))
    .map(([l, items]) => ({ type: 'array', ...l, ...items })),
  object: fc.record(
    {
      type: fc.constant('object'),
      properties: fc.dictionary(fc.constantFrom(...KEYS), tie('schema'), { maxKeys: 3 }),
      required: fc.subarray([...KEYS]),
      additionalProperties: fc.oneof(fc.constant(false), fc.constant(true), tie('schema')),
    },
    { requiredKeys: ['type', 'properties'] },
  ),
  allOf: fc.record({ allOf: fc.tuple(tie('schema'), tie('schema')) }),
}));

/** A random schema over the subset (scalars, arrays, objects, allOf, enum, const). */
export const schemaArb: fc.Arbitrary<Schema> = schemas.schema.map(asParsed);
/** A random object schema (what a rule's root data looks like). */
export const objectSchemaArb: fc.Arbitrary<Schema> = schemas.object.map(asParsed);

export const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, fallback: number) => (typeof v === 'number' ? v : fallback);
const anyValue = fc.jsonValue({ maxDepth: 2 });
const texts = fc.oneof(
  fc.string({ maxLength: 5, unit: 'grapheme-ascii' }),
  fc.string({ maxLength: 3, unit: 'binary' }),
  // Astral characters: one code point for a schema's maxLength, two units for `.length`.
  fc.string({ maxLength: 4, unit: fc.constantFrom('a', '\u{1F600}') }),
  fc.constantFrom('', '0', '1', ' 2 ', '1e1', 'abc', '\u{1F600}', 'a\u{1F600}'),
);

function numberValue(s: Schema, integer: boolean): fc.Arbitrary<number> {
  const lo = Math.max(-8, num(s.minimum, -8), num(s.exclusiveMinimum, -8));
  const hi = Math.min(9, num(s.maximum, 9), num(s.exclusiveMaximum, 9));
  const [min, max] = lo <= hi ? [lo, hi] : [-8, 9];
  const [first, last] = [Math.ceil(min), Math.floor(max)];
  const ints = first <= last ? fc.integer({ min: first, max: last }) : fc.constant(0);
  if (integer) return ints;
  return fc.oneof(ints, fc.double({ min, max, noNaN: true }), fc.constantFrom(min, max, 0.5, 0.8, -0));
}

function arrayValue(s: Schema, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = num(s.minItems, 0);
  const maxLength = Math.max(minLength, Math.min(num(s.maxItems, 4), minLength + 3));
  return fc.array(shapedValue(s.items, depth + 1), { minLength, maxLength });
}

function objectValue(s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = isSchema(s.properties) ? s.properties : {};
  const listed: unknown[] = Array.isArray(s.required) ? s.required : [];
  const required = listed.filter((k): k is string => typeof k === 'string');
  const keys = [...new Set([...Object.keys(props), ...required])];
  const fields = Object.fromEntries(keys.map((k) => [k, shapedValue(props[k], depth + 1)]));
  const named = fc.record(fields, { requiredKeys: required });
  if (s.additionalProperties === false) return named;
  const extraValue = shapedValue(s.additionalProperties, depth + 1);
  const extra = fc.dictionary(fc.constantFrom(...EXTRA_KEYS), extraValue, { maxKeys: 2 });
  return fc.tuple(extra, named).map(([e, n]) => ({ ...e, ...n }));
}

/** The value as JSON.parse would build it: plain prototypes (fast-check may make null ones), -0 kept. */
export function asParsed<T>(value: T): T {
  return rebuild(value) as T;
}

function rebuild(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebuild);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rebuild(v)]));
}

/** Values shaped after `schema` (mostly valid; filter with Ajv), built as JSON.parse builds them. */
export function valueFor(schema: unknown): fc.Arbitrary<unknown> {
  return shapedValue(schema, 0).map(asParsed);
}

const ANY_TYPE = ['number', 'string', 'array', 'object', 'null'];

function shapedValue(schema: unknown, depth: number): fc.Arbitrary<unknown> {
  if (!isSchema(schema) || depth > 4) return anyValue;
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.allOf)) {
    return fc.oneof(...schema.allOf.map((m: unknown) => shapedValue(m, depth + 1)));
  }
  const t = schema.type;
  const types: unknown[] = typeof t === 'string' ? [t] : Array.isArray(t) ? t : ANY_TYPE;
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      if (type === 'integer' || type === 'number') return numberValue(schema, type === 'integer');
      if (type === 'string') return texts;
      if (type === 'boolean') return fc.boolean();
      if (type === 'null') return fc.constant(null);
      if (type === 'array') return arrayValue(schema, depth);
      return type === 'object' ? objectValue(schema, depth) : anyValue;
    }),
  );
}
