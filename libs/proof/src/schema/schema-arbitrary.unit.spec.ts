import fc from 'fast-check';
import { getFacetCatalog } from '@flex/contracts';
import type { JsonSchema } from '../verdict';
import { arbitraryOf, SchemaArbitraryError } from './schema-arbitrary';
import { isValidForAll } from './test-support/check';
import { schemaArbitrary } from './test-support/random-schema';
import { witnessOf } from './witness';

const facet = (name: string): JsonSchema => {
  const definition = getFacetCatalog().get(name);
  if (definition === undefined) throw new Error(`no facet ${name}`);
  return definition.schema;
};
const sample = (schemas: readonly JsonSchema[], numRuns = 200): unknown[] =>
  fc.sample(arbitraryOf(schemas), { numRuns, seed: 2024 });
const records = (values: readonly unknown[]): Array<Record<string, unknown>> =>
  values as Array<Record<string, unknown>>;
const lists = (values: readonly unknown[]): unknown[][] => values as unknown[][];

describe('arbitraryOf yields only valid values', () => {
  it.each(
    getFacetCatalog()
      .list()
      .map((d) => [d.name, d.schema] as const),
  )('for facet %s', (_name, schema) => {
    fc.assert(
      fc.property(arbitraryOf([schema]), (value) => {
        expect(isValidForAll([schema], value)).toBe(true);
        expect(JSON.parse(JSON.stringify(value))).toEqual(value);
      }),
      { numRuns: 60 },
    );
  });

  it('for a facet narrowed by a caller', () => {
    const schemas = [
      facet('copyVariants'),
      { minItems: 3, items: { properties: { headline: { maxLength: 60, pattern: '^[A-Z]' } } } },
    ];
    fc.assert(
      fc.property(arbitraryOf(schemas), (value) => isValidForAll(schemas, value)),
      { numRuns: 100 },
    );
    expect(new Set(lists(sample(schemas, 200)).map((v) => v.length))).toEqual(new Set([3, 4, 5]));
  });

  it('for random pairs of schemas that have a witness', () => {
    fc.assert(
      fc.property(schemaArbitrary(), schemaArbitrary(), fc.integer(), (a, b, seed) => {
        if (witnessOf([a, b]) === undefined) return;
        for (const value of fc.sample(arbitraryOf([a, b]), { numRuns: 8, seed })) {
          if (!isValidForAll([a, b], value)) throw new Error(`invalid: ${JSON.stringify(value)}`);
        }
      }),
      { numRuns: 120 },
    );
  });
});

describe('arbitraryOf terminates', () => {
  it('when uniqueItems asks for more distinct elements than the items can take', () => {
    const schema = {
      minItems: 3,
      maxItems: 4,
      items: { type: 'array', const: ['a'] },
      uniqueItems: true,
      contains: {},
    };
    for (const value of sample([schema], 50)) expect(isValidForAll([schema], value)).toBe(true);
  });
});

describe('arbitraryOf yields varied values', () => {
  it('every array length within the bounds, and boundary string lengths', () => {
    const values = lists(sample([facet('copyVariants')]));
    expect(new Set(values.map((v) => v.length))).toEqual(new Set([1, 2, 3, 4, 5]));
    const headlines = records(values.flat()).map((v) => [...String(v.headline)].length);
    expect(headlines).toContain(1);
    expect(headlines).toContain(200);
  });

  it('optional properties both present and absent', () => {
    const rationales = records(sample([facet('strategicRationale')]));
    expect(rationales.some((v) => 'risks' in v)).toBe(true);
    expect(rationales.some((v) => !('risks' in v))).toBe(true);
    const knobs = records(sample([facet('planKnobs')]));
    for (const name of ['variantCount', 'ctaFocus', 'length'])
      expect(knobs.some((v) => name in v)).toBe(true);
  });

  it('every branch of a union, every enum value, extra properties named by propertyNames', () => {
    const assetTypes = new Set(
      records(lists(sample([facet('assetBundle')])).flat()).map((asset) => asset.type),
    );
    expect(assetTypes).toEqual(new Set(['link', 'image', 'document', 'text', 'data']));
    expect(new Set(sample([facet('toneOfVoice')])).size).toBeGreaterThanOrEqual(8);
    const findings = records(sample([facet('qaFindings')]));
    expect(findings.some((f) => Object.keys(f.scores as object).length >= 2)).toBe(true);
    expect(new Set(findings.map((f) => (f.issues as unknown[]).length)).size).toBeGreaterThanOrEqual(5);
  });
});

describe('arbitraryOf without a witness', () => {
  function thrown(run: () => unknown): SchemaArbitraryError {
    try {
      run();
    } catch (error) {
      if (error instanceof SchemaArbitraryError) return error;
      throw error;
    }
    throw new Error('expected a SchemaArbitraryError');
  }

  it('throws SchemaArbitraryError (NO_WITNESS) naming the findings', () => {
    const refuted = thrown(() => arbitraryOf([facet('copyVariants'), { type: 'string' }]));
    expect(refuted).toMatchObject({
      name: 'SchemaArbitraryError',
      code: 'NO_WITNESS',
      retryable: false,
      verdict: 'refuted',
    });
    expect(refuted.message).toMatch(
      /^no value satisfies every schema: \/: schema 1's type "array" and schema 2's type "string"/,
    );
    const uncompiled = thrown(() =>
      arbitraryOf([{ $ref: '#/definitions/x', definitions: { x: { type: 'string' } } }]),
    );
    expect(uncompiled).toMatchObject({
      verdict: 'unknown',
      findings: [expect.objectContaining({ keywords: ['$ref'] })],
    });
  });
});
