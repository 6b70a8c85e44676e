import fc from 'fast-check';
import { compileUntrustedSchema } from '@flex/facets';
import { evaluateRule, truthy } from '@flex/logic';
import type { JsonSchema } from '../verdict';
import { forgetFinite, fromValues } from './domain-values';
import { constDomain, domainOf, objectDomain, proveRule, type Domain, type Presence } from './index';
import { shapeOf, topRuleArb, type Shape } from './test-support/rule.arbitraries';
import {
  asParsed,
  objectSchemaArb,
  schemaArb,
  valueFor,
  type Schema,
} from './test-support/schema.arbitraries';

// Soundness: `proven` means every concrete value makes the rule truthy (without throwing);
// `refuted` means none does. Random schemas, rules and Ajv-valid values; fast-check prints the
// seed and the shrunk counterexample on failure.

const tally = { checks: 0, proven: 0, refuted: 0, unknown: 0 };

function assertSound(rule: unknown, data: Domain, values: readonly unknown[]): void {
  const proof = proveRule(rule, data);
  tally[proof.verdict] += 1;
  expect(proof.findings.filter((f) => f.keywords.includes('internal'))).toEqual([]);
  if (proof.verdict === 'unknown') return;
  for (const value of values) {
    tally.checks += 1;
    const run = evaluateRule(rule, value);
    const holds = run.ok && truthy(run.value);
    if (holds !== (proof.verdict === 'proven')) {
      throw new Error(`${proof.verdict} but ${JSON.stringify(run)} for ${JSON.stringify(value)}`);
    }
  }
}

/** The values every schema accepts (data Ajv cannot judge, like an own non-function `toString`, is not). */
function validOnly(schemas: readonly JsonSchema[], values: readonly unknown[]): unknown[] {
  const validators = schemas.map((s) => compileUntrustedSchema(s));
  return values.filter((v) => validators.every((validate) => validate(v).length === 0));
}

type PropertyCase = [Schema, Schema, Presence];

/** Whether property `key` of `value` fits its two schemas and its presence. */
function fits(value: Record<string, unknown>, key: string, [s, t, presence]: PropertyCase): boolean {
  if (!(key in value)) return presence !== 'always';
  return presence !== 'never' && validOnly([s, t], [value[key]]).length === 1;
}

describe('proveRule is sound', () => {
  afterAll(() => {
    // Not a precision claim: a guard that the generators reach both decided verdicts.
    expect(tally.proven).toBeGreaterThan(0);
    expect(tally.refuted).toBeGreaterThan(0);
  });

  it('over one object schema and Ajv-valid values', () => {
    const cases = objectSchemaArb.chain((schema) =>
      fc.record({
        schema: fc.constant(schema),
        rules: fc.array(topRuleArb(shapeOf(schema), 3), { minLength: 6, maxLength: 6 }),
        values: fc.array(valueFor(schema), { minLength: 8, maxLength: 8 }),
      }),
    );
    fc.assert(
      fc.property(cases, ({ schema, rules, values }) => {
        const valid = validOnly([schema], values);
        const data = domainOf([schema]);
        for (const rule of rules) assertSound(rule, data, valid);
      }),
      { numRuns: 120 },
    );
  });

  it('over properties with two schemas each and each presence', () => {
    const property = fc.tuple(schemaArb, schemaArb, fc.constantFrom<Presence>('always', 'maybe', 'never'));
    const cases = fc.tuple(property, property).chain(([p, q]) => {
      const root = { type: 'object', properties: { p: { allOf: [p[0], p[1]] }, q: { allOf: [q[0], q[1]] } } };
      const value = fc.record({ p: valueFor(p[0]), q: valueFor(q[0]) }, { requiredKeys: [] }).map(asParsed);
      return fc.record({
        p: fc.constant(p),
        q: fc.constant(q),
        rules: fc.array(topRuleArb(shapeOf(root), 3), { minLength: 5, maxLength: 5 }),
        values: fc.array(value, { minLength: 8, maxLength: 8 }),
      });
    });
    fc.assert(
      fc.property(cases, ({ p, q, rules, values }) => {
        const valid = values.filter((v) => fits(v, 'p', p) && fits(v, 'q', q));
        const data = objectDomain({
          p: { domain: domainOf([p[0], p[1]]), present: p[2] },
          q: { domain: domainOf([q[0], q[1]]), present: q[2] },
        });
        for (const rule of rules) assertSound(rule, data, valid);
      }),
      { numRuns: 100 },
    );
  });

  it('over short lists of values, with and without the lists (interval reasoning only)', () => {
    const lists = fc.array(fc.jsonValue({ maxDepth: 2 }).map(asParsed), { minLength: 1, maxLength: 3 });
    const cases = lists.chain((values) =>
      fc.record({
        values: fc.constant(values),
        rules: fc.array(topRuleArb(shapeOfValues(values), 3), { minLength: 6, maxLength: 6 }),
      }),
    );
    fc.assert(
      fc.property(cases, ({ values, rules }) => {
        const exact = values.length === 1 ? constDomain(values[0]) : fromValues(values);
        for (const rule of rules) {
          assertSound(rule, exact, values);
          assertSound(rule, forgetFinite(exact), values);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('over string lengths (code points in the schema, UTF-16 units at runtime) against small bounds', () => {
    const bounds = fc.tuple(fc.nat(4), fc.nat(4)).map(([a, b]) => (a <= b ? [a, b] : [b, a]));
    const cases = bounds.chain(([minLength, maxLength]) => {
      const schema = { type: 'string', minLength, maxLength };
      const value = valueFor(schema).map((s) => ({ s }));
      const values = fc.array(value, { minLength: 8, maxLength: 8 });
      return fc.record({ schema: fc.constant(schema), values });
    });
    const rules = ['<', '<=', '>', '>=', '==', '!='].flatMap((op) =>
      Array.from({ length: 10 }, (_, k) => ({ [op]: [{ var: 's.length' }, k] })),
    );
    fc.assert(
      fc.property(cases, ({ schema, values }) => {
        const valid = values.filter((v) => validOnly([schema], [v.s]).length === 1);
        const data = objectDomain({ s: { domain: domainOf([schema]), present: 'always' } });
        for (const rule of rules) assertSound(rule, data, valid);
      }),
      { numRuns: 40 },
    );
  });

  it('ran thousands of concrete checks', () => {
    expect(tally.checks).toBeGreaterThan(2000);
  });
});

/** The paths present in some of the values, and their arrays (items read by a few plain paths). */
function shapeOfValues(values: readonly unknown[]): Shape {
  const paths = [...new Set(values.flatMap((v) => pathsOf(v, '')))];
  const item: Shape = { paths: ['', 'a', '0', 'length'], arrays: [] };
  const lengths = paths.filter((p) => p === 'length' || p.endsWith('.length'));
  const arrays = lengths.map((p) => ({ path: p.slice(0, Math.max(0, p.length - '.length'.length)), item }));
  return { paths: ['', ...paths], arrays };
}

function pathsOf(value: unknown, prefix: string, depth = 0): string[] {
  if (typeof value === 'string') return [prefix === '' ? 'length' : `${prefix}.length`];
  if (typeof value !== 'object' || value === null || depth > 2) return [];
  const keys = Array.isArray(value) ? ['length', ...value.map((_, i) => String(i))] : Object.keys(value);
  return keys
    .filter((k) => !k.includes('.'))
    .flatMap((k) => {
      const path = prefix === '' ? k : `${prefix}.${k}`;
      return [path, ...pathsOf((value as Record<string, unknown>)[k], path, depth + 1)];
    });
}
