import { getFacetCatalog } from '@flex/contracts';
import type { JsonSchema } from '../verdict';
import { satisfiability } from './satisfiability';
import { isValidForAll } from './test-support/check';
import { patternSamples } from './pattern-sample';
import { witnessOf } from './witness';

const facet = (name: string): JsonSchema => {
  const definition = getFacetCatalog().get(name);
  if (definition === undefined) throw new Error(`no facet ${name}`);
  return definition.schema;
};

describe('witnessOf', () => {
  it.each(
    getFacetCatalog()
      .list()
      .map((d) => [d.name, d.schema] as const),
  )('finds a verified value for facet %s', (_name, schema) => {
    const witness = witnessOf([schema]);
    expect(witness).toBeDefined();
    expect(isValidForAll([schema], witness?.value)).toBe(true);
  });

  it.each<[string, JsonSchema, JsonSchema]>([
    ['more elements than the facet needs', facet('copyVariants'), { minItems: 3 }],
    ['distinct elements', facet('copyVariants'), { minItems: 2, uniqueItems: true }],
    [
      'a pattern on a required property',
      facet('copyVariants'),
      { items: { properties: { headline: { pattern: '^[A-Z][a-z]+!$' } } } },
    ],
    [
      'a URL pattern and a length',
      facet('assetBundle'),
      { minItems: 1, items: { properties: { type: { const: 'link' } } } },
    ],
    ['a format', facet('objectiveBrief'), { properties: { objective: { format: 'email' } } }],
    ['integer bounds and multipleOf', { type: 'integer', minimum: 7 }, { multipleOf: 5, maximum: 12 }],
    ['exclusive number bounds', { type: 'number', exclusiveMinimum: 0 }, { exclusiveMaximum: 1 }],
    ['minProperties over optional properties', facet('planKnobs'), { minProperties: 2 }],
    ['contains', { type: 'array', items: { type: 'integer' } }, { contains: { minimum: 10 } }],
    [
      'propertyNames naming the extra properties',
      { type: 'object', propertyNames: { enum: ['x', 'y'] } },
      { minProperties: 2 },
    ],
    ['a oneOf', { oneOf: [{ type: 'string', minLength: 2 }, { type: 'integer' }] }, { type: 'string' }],
    ['a shared enum value', facet('toneOfVoice'), { enum: ['sarcastic', 'bold'] }],
  ])('builds one for %s', (_label, a, b) => {
    const witness = witnessOf([a, b]);
    expect(witness).toBeDefined();
    expect(isValidForAll([a, b], witness?.value)).toBe(true);
  });

  it('prefers the smallest value: required properties only, minItems elements', () => {
    expect(witnessOf([facet('copyVariants'), { minItems: 2 }])?.value).toEqual([
      { headline: 'a', body: 'a', callToAction: 'a' },
      { headline: 'a', body: 'a', callToAction: 'a' },
    ]);
    expect(witnessOf([facet('strategicRationale')])?.value).toEqual({ northStar: 'a', whyItWorks: 'a' });
  });

  it('returns nothing it cannot verify', () => {
    expect(witnessOf([{ type: 'string' }, { type: 'number' }])).toBeUndefined();
    expect(witnessOf([{ $ref: '#/definitions/x', definitions: { x: { type: 'string' } } }])).toBeUndefined();
    expect(
      witnessOf([{ type: 'string', pattern: '^[a-z]+$' }, { not: { pattern: '^[a-z]+$' } }]),
    ).toBeUndefined();
  });
});

describe('satisfiability', () => {
  const labels = ['the facet', 'the caller'];

  it('refuted, with the conflict', () => {
    expect(satisfiability([facet('copyVariants'), { minItems: 7 }], '/copyVariants', labels)).toEqual({
      verdict: 'refuted',
      findings: [
        {
          pointer: '/copyVariants',
          keywords: ['minItems', 'maxItems'],
          message: "the caller's minItems 7 exceeds the facet's maxItems 5",
        },
      ],
    });
  });

  it('proven, with the witness', () => {
    const result = satisfiability([facet('copyVariants'), { maxItems: 3 }], '/copyVariants', labels);
    expect(result).toMatchObject({ verdict: 'proven', findings: [] });
    expect(isValidForAll([facet('copyVariants'), { maxItems: 3 }], result.witness)).toBe(true);
  });

  it('unknown, naming the keyword the best candidate failed', () => {
    const result = satisfiability([{ type: 'string' }, { not: { maxLength: 5 } }], '/x', labels);
    expect(result).toEqual({
      verdict: 'unknown',
      findings: [expect.objectContaining({ pointer: '/x', keywords: ['not'] })],
    });
    expect(result.findings[0].message).toMatch(/the best candidate fails the caller's not/);
  });

  it('unknown, naming the undecided keywords when nested candidates all fail', () => {
    const result = satisfiability(
      [facet('copyVariants'), { items: { properties: { body: { not: { minLength: 1 } } } } }],
      '/copyVariants',
      labels,
    );
    expect(result).toEqual({
      verdict: 'unknown',
      findings: [expect.objectContaining({ pointer: '/copyVariants', keywords: ['not'] })],
    });
  });

  it('unknown when a schema cannot be compiled on its own', () => {
    const result = satisfiability(
      [{ type: 'string' }, { $ref: '#/definitions/x', definitions: { x: { type: 'string' } } }],
      '/x',
      labels,
    );
    expect(result).toEqual({
      verdict: 'unknown',
      findings: [expect.objectContaining({ pointer: '/x', keywords: ['$ref'] })],
    });
  });

  it('unknown when no candidate could be built', () => {
    const result = satisfiability([{ type: 'array', minItems: 2000 }], '/x', labels);
    expect(result.verdict).toBe('unknown');
    expect(result.findings[0].message).toMatch(/no candidate value could be built/);
  });
});

describe('patternSamples', () => {
  it.each<[string, string, string]>([
    ['^https?://', 'http://', 'https://'],
    ['^[A-Z][a-z]+!$', 'Aa!', 'Aa!'],
    ['^(?:foo|bar)-\\d{3}$', 'foo-000', 'foo-000'],
    ['^[^0-9]x*', 'a', 'ax'],
  ])('%s', (pattern, least, most) => {
    expect(patternSamples(pattern)).toEqual({ least, most });
  });

  it('gives up on what it does not follow', () => {
    expect(patternSamples('(?=a)b')).toBeUndefined();
    expect(patternSamples('(a)\\1')).toBeUndefined();
  });
});
