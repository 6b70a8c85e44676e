import fc from 'fast-check';
import type { JsonSchema } from '../../verdict';

/** Small JSON values: enum and const entries, and probes that stand for "any value". */
export const VALUE_POOL: readonly unknown[] = [
  null,
  true,
  false,
  0,
  1,
  2,
  -1,
  1.5,
  '',
  'a',
  'ab',
  'abc',
  'https://x',
  [],
  ['a'],
  [1, 2],
  {},
  { a: 1 },
  { b: 'x' },
  { a: 'ab', b: 2 },
];

const NAMES = ['a', 'b', 'c'];
const TYPES = ['null', 'boolean', 'integer', 'number', 'string', 'array', 'object'];
const LEAVES: readonly JsonSchema[] = [
  true,
  false,
  {},
  { type: 'string' },
  { type: 'integer' },
  { minLength: 1 },
  { const: 'a' },
  { enum: [1, 'a'] },
];

const count = fc.integer({ min: 0, max: 4 });
const bound = fc.oneof(fc.integer({ min: -2, max: 4 }), fc.constantFrom(0.5, 1.5, 2.5));
const anyType = fc.oneof(
  fc.constantFrom(...TYPES),
  fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
);
const someValues = fc.uniqueArray(fc.constantFrom(...VALUE_POOL), {
  minLength: 1,
  maxLength: 4,
  selector: (v) => JSON.stringify(v),
});

type Model = { [keyword: string]: fc.Arbitrary<unknown> };

/** A schema with any subset of the model's keywords (`required` ones always). */
function keywords(model: Model, required: string[] = []): fc.Arbitrary<JsonSchema> {
  return fc.record(model, { requiredKeys: required, noNullPrototype: true });
}

/**
 * Families of random schemas over the keyword subset the proof reasons about, with small bounds
 * and a small value pool, so that two schemas of one family often conflict or overlap in subtle
 * ways. Every schema compiles with Flex's untrusted-schema Ajv.
 */
export function schemaFamilies(depth = 2): Array<fc.WeightedArbitrary<JsonSchema>> {
  const sub = depth > 0 ? schemaArbitrary(depth - 1) : fc.constantFrom(...LEAVES);
  const family = (weight: number, arbitrary: fc.Arbitrary<JsonSchema>) => ({ weight, arbitrary });
  return [
    family(1, fc.constantFrom<JsonSchema>(true, false)),
    family(
      4,
      keywords({
        type: fc.constantFrom('integer', 'number', ['integer', 'string']),
        minimum: bound,
        maximum: bound,
        exclusiveMinimum: bound,
        exclusiveMaximum: bound,
        multipleOf: fc.constantFrom(1, 2, 0.5),
      }),
    ),
    family(
      4,
      keywords({
        type: fc.constantFrom('string', ['string', 'null']),
        minLength: count,
        maxLength: count,
        pattern: fc.constantFrom('^a', '^https?://', 'b$', '^[0-9]+$'),
        format: fc.constantFrom('email', 'date'),
      }),
    ),
    family(
      4,
      keywords({
        type: fc.constant('array'),
        minItems: count,
        maxItems: count,
        items: sub,
        uniqueItems: fc.boolean(),
        contains: sub,
      }),
    ),
    family(4, objectSchema(sub)),
    family(1, tupleSchema(sub)),
    family(1, patternObjectSchema(sub)),
    family(3, keywords({ type: anyType, enum: someValues }, ['enum'])),
    family(2, keywords({ type: anyType, const: fc.constantFrom(...VALUE_POOL) }, ['const'])),
    family(
      2,
      keywords({
        type: anyType,
        anyOf: fc.array(sub, { minLength: 2, maxLength: 3 }),
        oneOf: fc.array(sub, { minLength: 2, maxLength: 2 }),
        allOf: fc.array(sub, { minLength: 1, maxLength: 2 }),
      }),
    ),
    family(
      3,
      keywords({
        type: anyType,
        minimum: bound,
        maxLength: count,
        minItems: count,
        items: sub,
        required: fc.subarray(NAMES, { minLength: 1 }),
        not: sub,
      }),
    ),
  ];
}

/** One random schema of any family. */
export function schemaArbitrary(depth = 2): fc.Arbitrary<JsonSchema> {
  return fc.oneof(...schemaFamilies(depth));
}

/** Two random schemas: as often of one family (subtle overlaps) as independent (mostly type clashes). */
export function schemaPairArbitrary(): fc.Arbitrary<[JsonSchema, JsonSchema]> {
  const sameFamily = fc
    .constantFrom(...schemaFamilies().map((f) => f.arbitrary))
    .chain((family) => fc.tuple(family, family));
  return fc.oneof(fc.tuple(schemaArbitrary(), schemaArbitrary()), sameFamily);
}

function objectSchema(sub: fc.Arbitrary<JsonSchema>): fc.Arbitrary<JsonSchema> {
  return keywords({
    type: fc.constant('object'),
    properties: fc.dictionary(fc.constantFrom(...NAMES), sub, { maxKeys: 3, noNullPrototype: true }),
    required: fc.subarray([...NAMES, 'd'], { minLength: 1 }),
    additionalProperties: fc.oneof(fc.constant(false), sub),
    minProperties: count,
    maxProperties: count,
    propertyNames: fc.constantFrom<JsonSchema>({ enum: ['a', 'b'] }, { maxLength: 1 }, { pattern: '^[ab]$' }),
    dependencies: fc.constant({ a: ['c'] }),
  });
}

// Ajv's strict mode admits tuple-form items only when the tuple is the whole array: minItems equal
// to their number, and additionalItems false or maxItems equal to it too.
function tupleSchema(sub: fc.Arbitrary<JsonSchema>): fc.Arbitrary<JsonSchema> {
  return fc
    .record({
      items: fc.array(sub, { minLength: 1, maxLength: 2 }),
      additionalItems: sub,
      closed: fc.boolean(),
    })
    .map(({ items, additionalItems, closed }) => ({
      type: 'array',
      items,
      minItems: items.length,
      ...(closed ? { additionalItems: false } : { additionalItems, maxItems: items.length }),
    }));
}

function patternObjectSchema(sub: fc.Arbitrary<JsonSchema>): fc.Arbitrary<JsonSchema> {
  return keywords(
    {
      type: fc.constant('object'),
      patternProperties: fc.record({ '^a': sub, b$: sub }, { requiredKeys: [], noNullPrototype: true }),
      additionalProperties: fc.oneof(fc.constant(false), sub),
      required: fc.subarray([...NAMES, 'ab'], { minLength: 1 }),
    },
    ['patternProperties'],
  );
}
