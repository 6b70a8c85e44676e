import { getFacetCatalog } from '@flex/contracts';
import type { JsonSchema } from '../verdict';
import { conflictsOf } from './conflicts';

const facet = (name: string): JsonSchema => {
  const definition = getFacetCatalog().get(name);
  if (definition === undefined) throw new Error(`no facet ${name}`);
  return definition.schema;
};
const LABELS = ['the facet', 'the caller'];
const against = (facetSchema: JsonSchema, caller: JsonSchema, pointer = '/out') =>
  conflictsOf([facetSchema, caller], pointer, LABELS);

describe('conflictsOf: each kind of conflict', () => {
  it.each<[string, JsonSchema, JsonSchema, string, string[], RegExp]>([
    [
      'disjoint types',
      { type: 'string' },
      { type: 'number' },
      '/out',
      ['type'],
      /type "string" and the caller's type "number"/,
    ],
    [
      'integer bounds with no integer between',
      { type: 'integer', minimum: 1.2 },
      { type: 'number', maximum: 1.8 },
      '/out',
      ['type', 'minimum', 'maximum'],
      /no integer lies between/,
    ],
    [
      'minLength above maxLength',
      { type: 'string', maxLength: 3 },
      { minLength: 4 },
      '/out',
      ['minLength', 'maxLength'],
      /the caller's minLength 4 exceeds the facet's maxLength 3/,
    ],
    [
      'minimum above maximum',
      { type: 'number', maximum: 2 },
      { minimum: 3 },
      '/out',
      ['minimum', 'maximum'],
      /minimum 3 exceeds the facet's maximum 2/,
    ],
    [
      'exclusive bound meeting an inclusive one',
      { type: 'number', maximum: 3 },
      { exclusiveMinimum: 3 },
      '/out',
      ['exclusiveMinimum', 'maximum'],
      /leave no room/,
    ],
    [
      'disjoint enums',
      facet('toneOfVoice'),
      { enum: ['sarcastic', 'grumpy'] },
      '/out',
      ['enum'],
      /have no value in common/,
    ],
    [
      'const outside an enum',
      facet('toneOfVoice'),
      { const: 'sarcastic' },
      '/out',
      ['const', 'enum'],
      /const "sarcastic" is not in the facet's enum/,
    ],
    [
      'const against bounds',
      { type: 'string', maxLength: 3 },
      { const: 'abcdef' },
      '/out',
      ['const', 'maxLength'],
      /"abcdef" fails the facet's maxLength/,
    ],
    [
      'const against type',
      { type: 'string' },
      { const: 5 },
      '/out',
      ['const', 'type'],
      /5 fails the facet's type/,
    ],
    ['false schema', { type: 'string' }, false, '/out', ['false'], /the caller's schema is false/],
    [
      'contains with maxItems 0',
      { type: 'array', maxItems: 0 },
      { contains: {} },
      '/out',
      ['contains', 'maxItems'],
      /contains needs an element/,
    ],
    ['not {}', { type: 'string' }, { not: {} }, '/out', ['not'], /rejects every value/],
    [
      'required beyond maxProperties',
      { type: 'object', maxProperties: 1 },
      { required: ['a', 'b'] },
      '/out',
      ['required', 'maxProperties'],
      /2 required properties/,
    ],
  ])('%s', (_label, facetSchema, caller, pointer, keywords, message) => {
    const [finding, ...rest] = against(facetSchema, caller);
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({ pointer });
    expect([...finding.keywords].sort()).toEqual([...keywords].sort());
    expect(finding.message).toMatch(message);
  });

  it('caller minItems above the facet maxItems (copyVariants)', () => {
    expect(against(facet('copyVariants'), { type: 'array', minItems: 7 }, '/copyVariants')).toEqual([
      {
        pointer: '/copyVariants',
        keywords: ['minItems', 'maxItems'],
        message: "the caller's minItems 7 exceeds the facet's maxItems 5",
      },
    ]);
  });

  it('a required property the facet forbids (additionalProperties: false), inside every element', () => {
    const [finding] = against(facet('copyVariants'), { items: { required: ['imageUrl'] } }, '/copyVariants');
    expect(finding.pointer).toBe('/copyVariants/*/imageUrl');
    expect(finding.keywords).toEqual(['required', 'additionalProperties', 'minItems']);
    expect(finding.message).toMatch(
      /the caller requires "imageUrl" but the facet's schema has additionalProperties: false/,
    );
    expect(finding.message).toMatch(/the facet's minItems 1 requires an element/);
  });

  it('a required property whose schema is false, or whose name propertyNames refuses', () => {
    expect(against({ properties: { x: false } }, { type: 'object', required: ['x'] })[0]).toMatchObject({
      pointer: '/out/x',
      keywords: ['required', 'properties'],
    });
    expect(
      against({ propertyNames: { maxLength: 2 } }, { type: 'object', required: ['long'] })[0],
    ).toMatchObject({
      pointer: '/out/long',
      keywords: ['required', 'propertyNames', 'maxLength'],
    });
  });

  it('a conflict inside a required property of every element', () => {
    const [finding] = against(
      facet('copyVariants'),
      { items: { properties: { body: { minLength: 5000 } } } },
      '/copyVariants',
    );
    expect(finding.pointer).toBe('/copyVariants/*/body');
    expect(finding.keywords).toEqual(['minLength', 'maxLength', 'required', 'minItems']);
    expect(finding.message).toMatch(
      /^the caller's minLength 5000 exceeds the facet's maxLength 3000; the facet requires "body"/,
    );
  });

  it('uniqueItems asking for more distinct elements than the items can take', () => {
    const [finding] = against(facet('qaRubric'), { properties: { checks: { minItems: 9 } } }, '/rubric');
    expect(finding).toMatchObject({
      pointer: '/rubric/checks',
      keywords: ['uniqueItems', 'minItems', 'required'],
    });
  });

  it('no branch of a union compatible with the caller', () => {
    const [finding] = against(
      facet('assetBundle'),
      { minItems: 1, items: { properties: { type: { const: 'video' } } } },
      '/assets',
    );
    expect(finding.pointer).toBe('/assets/*');
    expect(finding.keywords).toEqual(expect.arrayContaining(['oneOf', 'const', 'minItems']));
    expect(finding.message).toMatch(/^no branch of the facet's oneOf fits: branch 1: .*"link".*"video"/);
  });

  it('minProperties above what additionalProperties: false admits', () => {
    expect(against(facet('planKnobs'), { minProperties: 4 })[0]).toMatchObject({
      keywords: ['minProperties', 'additionalProperties'],
    });
  });

  it('allOf members are conjuncts; property names are escaped in pointers', () => {
    expect(against(facet('copyVariants'), { allOf: [{ maxItems: 0 }] })[0].keywords).toEqual([
      'minItems',
      'maxItems',
    ]);
    expect(against({ type: 'object', required: ['a/b~'] }, { additionalProperties: false })[0].pointer).toBe(
      '/out/a~1b~0',
    );
  });

  it('default labels name the schemas by position', () => {
    expect(conflictsOf([{ type: 'string' }, { type: 'null' }])[0]).toMatchObject({
      pointer: '',
      message: 'schema 1\'s type "string" and schema 2\'s type "null" have no value in common',
    });
  });
});

describe('conflictsOf: no conflict where a value exists', () => {
  it.each<[string, JsonSchema, JsonSchema]>([
    ['integer within number', { type: 'integer' }, { type: 'number', minimum: 1, maximum: 1 }],
    ['untyped crossed bounds (a string satisfies both)', { minimum: 5 }, { maximum: 3 }],
    ['crossed item counts without a type (null satisfies both)', { minItems: 7 }, { maxItems: 5 }],
    [
      'a conflict inside an optional property',
      facet('strategicRationale'),
      { properties: { risks: { minItems: 20 } } },
    ],
    [
      'a conflict inside items when no element is required',
      facet('recommendationSet'),
      { items: { properties: { severity: { enum: ['critical'] } } } },
    ],
    ['touching inclusive bounds', { type: 'number', minimum: 3 }, { maximum: 3 }],
    [
      'a union with one compatible branch',
      facet('assetBundle'),
      { minItems: 1, items: { properties: { type: { const: 'text' } } } },
    ],
    [
      'patterns and formats are not judged',
      { type: 'string', pattern: '^a' },
      { pattern: '^b', format: 'email' },
    ],
    ['nullable widens the type', { type: 'string', nullable: true }, { type: 'null' }],
  ])('%s', (_label, facetSchema, caller) => {
    expect(against(facetSchema, caller)).toEqual([]);
  });
});
