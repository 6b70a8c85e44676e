import fc from 'fast-check';
import { getFacetCatalog } from '@flex/contracts';
import { checkUntrustedSchema } from '@flex/facets';
import type { JsonSchema } from '../verdict';
import { conflictsOf } from './conflicts';
import { arbitraryOf, SchemaArbitraryError } from './schema-arbitrary';
import { isValidForAll } from './test-support/check';
import { schemaArbitrary, schemaPairArbitrary, VALUE_POOL } from './test-support/random-schema';
import { witnessOf } from './witness';

// Now and then the first schema is a real catalog facet, the second a random caller schema.
const facets = fc.constantFrom(
  ...getFacetCatalog()
    .list()
    .map((d): JsonSchema => d.schema),
);
const pairs = fc.oneof(
  { weight: 5, arbitrary: schemaPairArbitrary() },
  { weight: 1, arbitrary: fc.tuple(facets, schemaArbitrary()) },
);
const SAMPLES = 12;

/** Values each schema accepts on its own, plus any-JSON probes: where a shared value would hide. */
function probes(a: JsonSchema, b: JsonSchema, seed: number): unknown[] {
  const own = [a, b].flatMap((schema) => {
    try {
      return fc.sample(arbitraryOf([schema]), { numRuns: SAMPLES, seed });
    } catch (error) {
      if (error instanceof SchemaArbitraryError) return [];
      throw error;
    }
  });
  return [...VALUE_POOL, ...own, ...fc.sample(fc.jsonValue({ maxDepth: 2 }), { numRuns: SAMPLES, seed })];
}

describe('conflictsOf is sound', () => {
  it('every random schema compiles (the generator stays inside what callers may send)', () => {
    for (const [a, b] of fc.sample(pairs, { numRuns: 100, seed: 7 })) {
      expect(checkUntrustedSchema(a)).toEqual([]);
      expect(checkUntrustedSchema(b)).toEqual([]);
    }
  });

  it('no value sampled from either schema satisfies both when they conflict; a witness: no conflict', () => {
    fc.assert(
      fc.property(pairs, fc.integer(), ([a, b], seed) => {
        const findings = conflictsOf([a, b]);
        if (witnessOf([a, b]) !== undefined) expect(findings).toEqual([]);
        if (findings.length === 0) return;
        const shared = probes(a, b, seed).find((value) => isValidForAll([a, b], value));
        if (shared !== undefined) {
          throw new Error(`${JSON.stringify(shared)} satisfies both, yet: ${JSON.stringify(findings)}`);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the property is not vacuous: random pairs are often refuted and often proven', () => {
    let refuted = 0;
    let proven = 0;
    for (const [a, b] of fc.sample(pairs, { numRuns: 300, seed: 42 })) {
      if (conflictsOf([a, b]).length > 0) refuted += 1;
      else if (witnessOf([a, b]) !== undefined) proven += 1;
    }
    expect(refuted).toBeGreaterThan(50);
    expect(proven).toBeGreaterThan(20);
  });
});
