import fc from 'fast-check';
import { createSafeAjv } from '../safe-ajv';
import {
  checkUntrustedSchema,
  compileUntrustedSchema,
  UNVALIDATABLE,
  validationErrors,
} from './untrusted-schema';

const str = { type: 'string' };
const defs = (d: Record<string, unknown>, rest: Record<string, unknown> = {}) => ({ $defs: d, ...rest });

describe('checkUntrustedSchema: $ref cycles that check a value against itself for ever', () => {
  it.each<[string, unknown, string, string]>([
    [
      'two definitions referring to each other',
      defs(
        { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
        { properties: { x: { $ref: '#/$defs/a' } } },
      ),
      'outputContract.schema.$defs.a.$ref',
      '#/$defs/a → #/$defs/b → #/$defs/a',
    ],
    ['the root referring to itself', { $ref: '#' }, 'outputContract.schema.$ref', '# → #'],
    [
      'the root through allOf',
      { type: 'object', allOf: [{ $ref: '#' }] },
      'outputContract.schema.allOf[0].$ref',
      '# → #/allOf/0 → #',
    ],
    [
      'through anyOf and oneOf',
      defs(
        { a: { anyOf: [str, { $ref: '#/$defs/b' }] }, b: { oneOf: [{ $ref: '#/$defs/a' }] } },
        { properties: { x: { $ref: '#/$defs/a' } } },
      ),
      'outputContract.schema.$defs.a.anyOf[1].$ref',
      '#/$defs/a → #/$defs/a/anyOf/1 → #/$defs/b → #/$defs/b/oneOf/0 → #/$defs/a',
    ],
    [
      'through not',
      defs({ a: { not: { $ref: '#/$defs/a' } } }, { items: { $ref: '#/$defs/a' } }),
      'outputContract.schema.$defs.a.not.$ref',
      '#/$defs/a → #/$defs/a/not → #/$defs/a',
    ],
    [
      'through if/then',
      defs({ a: { if: str, then: { $ref: '#/$defs/a' } } }, { properties: { x: { $ref: '#/$defs/a' } } }),
      'outputContract.schema.$defs.a.then.$ref',
      '#/$defs/a → #/$defs/a/then → #/$defs/a',
    ],
    [
      'through a schema dependency',
      defs(
        { a: { dependencies: { k: { $ref: '#/$defs/a' } } } },
        { properties: { x: { $ref: '#/$defs/a' } } },
      ),
      'outputContract.schema.$defs.a.dependencies.k.$ref',
      '#/$defs/a → #/$defs/a/dependencies/k → #/$defs/a',
    ],
    [
      'a percent-encoded pointer',
      defs({ 'a b': { $ref: '#/$defs/a%20b' } }, { properties: { x: { $ref: '#/$defs/a%20b' } } }),
      'outputContract.schema.$defs["a b"].$ref',
      '#/$defs/a b → #/$defs/a b',
    ],
  ])('%s: REF_CYCLE at the $ref, the cycle named', (_label, schema, path, cycle) => {
    const issues = checkUntrustedSchema(schema);
    expect(issues).toEqual([expect.objectContaining({ path, code: 'REF_CYCLE' })]);
    expect(issues[0].message).toContain(cycle);
  });

  it.each<[string, unknown]>([
    [
      'a tree: the cycle passes through items and properties',
      defs(
        {
          node: {
            type: 'object',
            properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } },
          },
        },
        { properties: { tree: { $ref: '#/$defs/node' } } },
      ),
    ],
    ['the root inside a property', { type: 'object', properties: { next: { $ref: '#' } } }],
    ['the root inside additionalProperties', { type: 'object', additionalProperties: { $ref: '#' } }],
    ['the root among property names', { propertyNames: { $ref: '#' } }],
    [
      'a list: a definition inside its own property',
      defs(
        { list: { type: 'object', properties: { next: { $ref: '#/$defs/list' } } } },
        { $ref: '#/$defs/list' },
      ),
    ],
    [
      'a map: a definition inside its own additionalProperties',
      defs(
        { map: { type: 'object', additionalProperties: { $ref: '#/$defs/map' } } },
        { $ref: '#/$defs/map' },
      ),
    ],
    [
      'a definition among its own property names',
      defs({ names: { propertyNames: { $ref: '#/$defs/names' } } }, { $ref: '#/$defs/names' }),
    ],
    [
      'a cycle no schema reaches',
      defs({ a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, { type: 'object' }),
    ],
    [
      'one definition referred to twice (a diamond, not a cycle)',
      defs(
        { s: str, t: { allOf: [{ $ref: '#/$defs/s' }] } },
        { allOf: [{ $ref: '#/$defs/s' }, { $ref: '#/$defs/t' }] },
      ),
    ],
  ])('%s: accepted, and it validates', (_label, schema) => {
    expect(checkUntrustedSchema(schema)).toEqual([]);
    expect(compileUntrustedSchema(schema)({})).not.toContainEqual(
      expect.objectContaining({ keyword: UNVALIDATABLE }),
    );
  });

  it('validates a recursive schema whose $ref is the root itself', () => {
    const list = compileUntrustedSchema({
      type: 'object',
      required: ['value'],
      properties: { value: { type: 'integer' }, next: { $ref: '#' } },
    });
    expect(list({ value: 1, next: { value: 2, next: { value: 3 } } })).toEqual([]);
    expect(list({ value: 1, next: { value: 'two' } })).toEqual([
      expect.objectContaining({ pointer: '/next/value', keyword: 'type' }),
    ]);
  });

  it('leaves a schema with a nested $id to Ajv: its local $refs resolve in another scope', () => {
    // In the root's terms #/$defs/a is `a` itself (a cycle); in a.json's terms it is the string schema.
    const scoped = defs(
      { a: { $id: 'https://example.test/a.json', $defs: { a: str }, allOf: [{ $ref: '#/$defs/a' }] } },
      { properties: { x: { $ref: '#/$defs/a' } } },
    );
    expect(checkUntrustedSchema(scoped).map((i) => i.code)).not.toContain('REF_CYCLE');
  });

  /**
   * Soundness over generated schemas: any schema accepted compiles, and checking any value against it
   * ends with a verdict, never Ajv's stack overflow (UNVALIDATABLE) on shallow data. The generated
   * $ref graphs hold cycles both through parts of the value and through the value itself, so both
   * verdicts come up (counted, so the property cannot pass by refusing or accepting everything).
   */
  it('accepted schemas always end with a verdict (generated $ref graphs and values)', () => {
    const seen = { accepted: 0, cycles: 0, other: {} as Record<string, number> };
    fc.assert(
      fc.property(schemaArb, fc.array(valueArb, { minLength: 1, maxLength: 12 }), (schema, values) => {
        const issues = checkUntrustedSchema(schema);
        if (issues.some((i) => i.code === 'REF_CYCLE')) seen.cycles += 1;
        else if (issues.length > 0) seen.other[issues[0].message] = (seen.other[issues[0].message] ?? 0) + 1;
        if (issues.length > 0) return;
        seen.accepted += 1;
        const validate = compileUntrustedSchema(schema);
        for (const value of values)
          expect(validate(value)).not.toContainEqual(expect.objectContaining({ keyword: UNVALIDATABLE }));
      }),
      { numRuns: 300 },
    );
    console.log(`generated schemas: ${JSON.stringify(seen)}`);
    expect(seen.accepted).toBeGreaterThan(50);
    expect(seen.cycles).toBeGreaterThan(10);
  });

  it('what it refuses, Ajv alone cannot judge: it overflows compiling it, or on a value', () => {
    // The examples above, compiled without the check.
    const ajv = createSafeAjv();
    const overflows = (schema: object, value: unknown): boolean => {
      try {
        const validate = ajv.compile(schema);
        return validationErrors(validate, value).some((e) => e.keyword === UNVALIDATABLE);
      } catch (error) {
        return error instanceof RangeError;
      } finally {
        ajv.removeSchema(schema);
      }
    };
    const pair = defs(
      { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } },
      { properties: { x: { $ref: '#/$defs/a' } } },
    );
    expect(overflows(pair, {})).toBe(true);
    const anyOf = defs(
      { a: { anyOf: [str, { $ref: '#/$defs/b' }] }, b: { oneOf: [{ $ref: '#/$defs/a' }] } },
      { properties: { x: { $ref: '#/$defs/a' } } },
    );
    expect(overflows(anyOf, { x: 1 })).toBe(true);
    expect(
      overflows(defs({ a: { not: { $ref: '#/$defs/a' } } }, { items: { $ref: '#/$defs/a' } }), [1]),
    ).toBe(true);
  });
});

const NAMES = ['d0', 'd1', 'd2'];
const ref = fc.constantFrom(...NAMES).map((n) => ({ $ref: `#/$defs/${n}` }));
const leaf = fc.oneof(
  fc.constantFrom<unknown>({ type: 'string' }, { type: 'integer' }, { type: 'object' }, { type: 'array' }),
  fc.constantFrom<unknown>(true, false, { const: 1 }, { minimum: 0 }, { required: ['p'] }),
);
const { expr } = fc.letrec<{ expr: unknown }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: leaf, weight: 2 },
    { arbitrary: ref, weight: 3 },
    fc.record({ allOf: fc.array(tie('expr'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ anyOf: fc.array(tie('expr'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('expr'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ not: tie('expr') }),
    fc.record({ if: tie('expr'), then: tie('expr') }),
    fc.record({ properties: fc.record({ p: tie('expr') }) }),
    fc.record({ items: tie('expr') }),
    fc.record({ additionalProperties: tie('expr') }),
  ),
}));
const schemaArb = fc
  .tuple(fc.tuple(expr, expr, expr), expr)
  .map(([[d0, d1, d2], root]) => ({ ...(root as object), $defs: { d0, d1, d2 } }))
  .filter((s) => typeof s === 'object');
const { value: valueArb } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 4 },
    fc.constantFrom<unknown>(1, -1, 'p', null, true),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.record({ p: tie('value') }, { requiredKeys: [] }),
    fc.record({ p: tie('value'), q: tie('value') }),
  ),
}));
