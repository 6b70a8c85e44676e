import type { JsonSchema } from '../verdict';
import { absentDomain, constDomain, domainOf, objectDomain, proveRule, type Domain } from './index';
import { dataOf } from './test-support/data-of';

const always = (...schemas: JsonSchema[]) => ({ domain: domainOf(schemas), present: 'always' as const });
const verdict = (rule: unknown, d: Domain) => proveRule(rule, d).verdict;

const variants = (minItems: number, maxItems: number) =>
  dataOf({
    copyVariants: {
      type: 'array',
      minItems,
      maxItems,
      items: { type: 'object', required: ['body'], properties: { body: { type: 'string', maxLength: 300 } } },
    },
  });

describe('proveRule: the common constraints', () => {
  it('decides an array length against a fixed, a bounded and an exceeded count', () => {
    const length = (op: string, n: number) => ({ [op]: [{ var: 'copyVariants.length' }, n] });
    expect(verdict(length('==', 3), variants(3, 3))).toBe('proven');
    expect(verdict(length('==', 3), variants(1, 5))).toBe('unknown');
    expect(verdict(length('>=', 6), variants(0, 5))).toBe('refuted');
    const finding = proveRule(length('==', 3), variants(1, 5)).findings[0];
    expect(finding).toMatchObject({ pointer: '/copyVariants', keywords: ['=='] });
  });

  it("proves a bound on every item, counting a text's length in UTF-16 units", () => {
    const bound = (n: number) => ({ all: [{ var: 'copyVariants' }, { '<=': [{ var: 'body.length' }, n] }] });
    // maxLength 300 counts code points: 300 emoji are 600 units long.
    expect(verdict(bound(600), variants(1, 5))).toBe('proven');
    expect(verdict(bound(300), variants(1, 5))).toBe('unknown');
    const nonEmpty = { all: [{ var: 'copyVariants' }, { '>=': [{ var: 'body.length' }, 1] }] };
    expect(verdict(nonEmpty, variants(1, 5))).toBe('unknown');
  });

  it('decides `missing` under negation from presence', () => {
    const rule = { '!': { missing: ['a'] } };
    expect(verdict(rule, dataOf({ a: { type: 'string', minLength: 1 } }))).toBe('proven');
    expect(verdict(rule, objectDomain({ a: { domain: absentDomain(), present: 'never' } }))).toBe('refuted');
    expect(verdict(rule, dataOf({ a: { type: 'integer' } }, ['a']))).toBe('unknown');
    const nullable = proveRule(rule, dataOf({ a: { type: ['string', 'null'], minLength: 1 } }));
    expect(nullable).toMatchObject({
      verdict: 'unknown',
      findings: [{ pointer: '/a', keywords: ['!', 'missing'] }],
    });
  });

  it('leaves a score threshold inside the schema range unknown, naming the pointer', () => {
    const d = dataOf({
      qaFindings: {
        type: 'object',
        required: ['overallScore'],
        properties: { overallScore: { type: 'number', minimum: 0, maximum: 1 } },
      },
    });
    const proof = proveRule({ '>=': [{ var: 'qaFindings.overallScore' }, 0.8] }, d);
    expect(proof.verdict).toBe('unknown');
    expect(proof.findings[0]).toMatchObject({ pointer: '/qaFindings/overallScore', keywords: ['>='] });
    expect(verdict({ '>=': [{ var: 'qaFindings.overallScore' }, 0] }, d)).toBe('proven');
    expect(verdict({ '>': [{ var: 'qaFindings.overallScore' }, 1] }, d)).toBe('refuted');
  });
});

describe('proveRule: comparisons', () => {
  const score = (schema: JsonSchema) => dataOf({ s: schema });

  it('uses open bounds and integer-ness', () => {
    expect(verdict({ '>': [{ var: 's' }, 0] }, score({ type: 'number', exclusiveMinimum: 0 }))).toBe(
      'proven',
    );
    expect(verdict({ '>=': [{ var: 's' }, 1] }, score({ type: 'integer', exclusiveMinimum: 0 }))).toBe(
      'proven',
    );
    expect(verdict({ '<=': [0, { var: 's' }, 1] }, score({ type: 'number', minimum: 0, maximum: 1 }))).toBe(
      'proven',
    );
    expect(verdict({ '<': [0, { var: 's' }, 1] }, score({ type: 'number', minimum: 0, maximum: 1 }))).toBe(
      'unknown',
    );
  });

  it('follows loose and strict equality over enums', () => {
    const status = score({ enum: ['approved', 'published'] });
    expect(verdict({ '!=': [{ var: 's' }, 'draft'] }, status)).toBe('proven');
    expect(verdict({ '==': [{ var: 's' }, 'approved'] }, status)).toBe('unknown');
    expect(verdict({ in: [{ var: 's' }, ['approved', 'published', 'x']] }, status)).toBe('proven');
    const one = score({ const: 1 });
    expect(verdict({ '==': [{ var: 's' }, '1'] }, one)).toBe('proven');
    expect(verdict({ '===': [{ var: 's' }, '1'] }, one)).toBe('refuted');
    expect(verdict({ '!==': [{ var: 's' }, true] }, score({ type: 'number' }))).toBe('proven');
  });

  it('compares text with text and everything else as numbers', () => {
    expect(verdict({ '<': [{ var: 's' }, 'b'] }, score({ type: 'string' }))).toBe('unknown');
    expect(verdict({ '>': [{ var: 's' }, 5] }, score({ type: 'null' }))).toBe('refuted');
    expect(verdict({ '<=': ['', { var: 's' }] }, score({ type: 'string' }))).toBe('proven');
  });
});

describe('proveRule: logic', () => {
  const flags = dataOf({ on: { type: 'boolean' }, n: { type: 'integer', minimum: 1, maximum: 3 } });

  it('and / or return operands; ! and !! use JSONLogic truthiness', () => {
    expect(verdict({ '==': [{ or: [0, 'x'] }, 'x'] }, flags)).toBe('proven');
    expect(verdict({ and: [{ var: 'n' }, { '>': [{ var: 'n' }, 0] }] }, flags)).toBe('proven');
    expect(verdict({ or: [{ var: 'on' }, { '>': [{ var: 'n' }, 0] }] }, flags)).toBe('proven');
    // Operands are judged one by one (no relations between them): a tautology stays unknown.
    expect(verdict({ or: [{ var: 'on' }, { '!': { var: 'on' } }] }, flags)).toBe('unknown');
    expect(verdict({ '!!': [[]] }, flags)).toBe('refuted');
    expect(verdict({ and: [{ var: 'on' }, false] }, flags)).toBe('refuted');
  });

  it('if / ?: take the reachable branches only', () => {
    expect(verdict({ if: [{ var: 'n' }, { '>=': [{ var: 'n' }, 1] }, false] }, flags)).toBe('proven');
    expect(verdict({ '?:': [{ var: 'on' }, 1, 0] }, flags)).toBe('unknown');
    expect(verdict({ if: [false, 1, { '<': [{ var: 'n' }, 1] }, 2, 0] }, flags)).toBe('refuted');
    expect(verdict({ if: [] }, flags)).toBe('refuted');
  });

  it('var reads defaults, indexes and the whole data', () => {
    const d = objectDomain({
      gone: { domain: absentDomain(), present: 'never' },
      xs: always({ type: 'array', minItems: 2, items: { const: 7 } }),
    });
    expect(verdict({ '==': [{ var: ['gone', 5] }, 5] }, d)).toBe('proven');
    expect(verdict({ '==': [{ var: 'xs.1' }, 7] }, d)).toBe('proven');
    expect(verdict({ '==': [{ var: 'xs.2' }, 7] }, d)).toBe('unknown');
    expect(verdict({ '!!': { var: '' } }, d)).toBe('proven');
    expect(verdict({ '==': [{ var: 'k' }, 1] }, constDomain({ k: 1 }))).toBe('proven');
  });
});
