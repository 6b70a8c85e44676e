import { evaluateRule } from '@flex/logic';
import { constDomain, domainOf, proveRule, type Domain } from './index';
import { dataOf } from './test-support/data-of';

// The corners where JSONLogic as Flex runs it differs from what a reader expects; the proof
// follows the runtime (libs/logic evaluateRule), never the expectation.

const verdict = (rule: unknown, d: Domain) => proveRule(rule, d).verdict;

describe("the hardened `var` reads own properties of objects and arrays, and a string's length", () => {
  it("reads a string's length in UTF-16 units and nothing else of it (tripwire for var-lookup.ts)", () => {
    expect(evaluateRule({ var: 's.length' }, { s: 'abc' })).toEqual({ ok: true, value: 3 });
    expect(evaluateRule({ var: 's.length' }, { s: '\u{1F600}' })).toEqual({ ok: true, value: 2 });
    expect(evaluateRule({ var: 'a.length' }, { a: [1, 2] })).toEqual({ ok: true, value: 2 });
    expect(evaluateRule({ var: 's.0' }, { s: 'abc' })).toEqual({ ok: true, value: null });
    expect(evaluateRule({ var: 'n.length' }, { n: 12 })).toEqual({ ok: true, value: null });
  });

  it('so minLength a, maxLength b give a .length in [a, 2b]', () => {
    const d = dataOf({ s: { type: 'string', minLength: 1, maxLength: 3 } });
    expect(verdict({ '>=': [{ var: 's.length' }, 1] }, d)).toBe('proven');
    expect(verdict({ '<=': [{ var: 's.length' }, 6] }, d)).toBe('proven');
    expect(verdict({ '<=': [{ var: 's.length' }, 3] }, d)).toBe('unknown');
    expect(verdict({ '>': [{ var: 's.length' }, 6] }, d)).toBe('refuted');
    expect(verdict({ '==': [{ var: 's.length' }, 0] }, d)).toBe('refuted');
    expect(verdict({ '==': [{ var: 's.length' }, 2.5] }, d)).toBe('refuted');
  });

  it('uses the exact lengths of a known list of texts', () => {
    const d = dataOf({ s: { enum: ['ab', '\u{1F600}\u{1F600}', 'abcd'] } });
    expect(verdict({ '!=': [{ var: 's.length' }, 3] }, d)).toBe('proven');
    expect(verdict({ in: [{ var: 's.length' }, [2, 4]] }, d)).toBe('proven');
    expect(verdict({ '==': [{ var: 's.length' }, 4] }, d)).toBe('unknown');
  });

  it('reads item lengths inside quantifiers and points at the text', () => {
    const tags = dataOf({ tags: { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } } });
    expect(verdict({ all: [{ var: 'tags' }, { '>=': [{ var: 'length' }, 1] }] }, tags)).toBe('proven');
    const some = proveRule({ some: [{ var: 'tags' }, { '>': [{ var: 'length' }, 5] }] }, tags);
    expect(some.verdict).toBe('unknown');
    expect(some.findings[0]).toMatchObject({ pointer: '/tags/*', keywords: ['>'] });
    const body = proveRule({ '>': [{ var: 's.length' }, 2] }, dataOf({ s: { type: 'string' } }));
    expect(body.findings[0]).toMatchObject({ pointer: '/s', keywords: ['>'] });
  });

  it('still gives the default for `length` of a number, a boolean or null', () => {
    const d = dataOf({ x: { type: ['number', 'boolean', 'null'] } });
    expect(verdict({ '==': [{ var: 'x.length' }, null] }, d)).toBe('proven');
    const either = dataOf({ x: { type: ['number', 'string'], maxLength: 2 } });
    expect(verdict({ '<=': [{ var: ['x.length', 0] }, 4] }, either)).toBe('proven');
    expect(verdict({ '==': [{ var: 'x.length' }, null] }, either)).toBe('unknown');
  });
});

describe('values that make the evaluator throw fail the constraint', () => {
  const open = dataOf({ o: { type: 'object' } });

  it('an object that may own `toString` cannot be proven to convert', () => {
    expect(evaluateRule({ cat: [{ var: 'o' }] }, { o: { toString: 1 } }).ok).toBe(false);
    expect(verdict({ '==': [{ cat: [{ var: 'o' }] }, '[object Object]'] }, open)).toBe('unknown');
    const closed = dataOf({ o: { type: 'object', properties: { a: {} }, additionalProperties: false } });
    expect(verdict({ '==': [{ cat: [{ var: 'o' }] }, '[object Object]'] }, closed)).toBe('proven');
  });

  it('`in` on an object is false, or throws when it owns `indexOf`: refuted either way', () => {
    expect(verdict({ in: ['a', { var: 'o' }] }, open)).toBe('refuted');
  });

  it('`*` without operands always throws', () => {
    expect(verdict({ '!': { '*': [] } }, open)).toBe('refuted');
  });
});

describe('JSON corners', () => {
  it('0 may arrive as -0, so 1 / 0 may be -Infinity', () => {
    expect(evaluateRule({ '/': [1, { var: 'x' }] }, JSON.parse('{"x":-0}'))).toEqual({
      ok: true,
      value: -Infinity,
    });
    expect(verdict({ '>': [{ '/': [1, { var: 'x' }] }, 0] }, dataOf({ x: { const: 0 } }))).toBe('unknown');
  });

  it('a string of maxLength 1 may be two UTF-16 units long', () => {
    const short = dataOf({ s: { type: 'string', maxLength: 1 } });
    expect(verdict({ '!=': [{ var: 's' }, '\u{1F600}'] }, short)).toBe('unknown');
    expect(verdict({ '!=': [{ var: 's' }, 'abc'] }, dataOf({ s: { type: 'string', maxLength: 1 } }))).toBe(
      'proven',
    );
  });

  it('two reads of one array are the same reference, so == may hold', () => {
    const d = dataOf({ xs: { type: 'array' } });
    expect(evaluateRule({ '==': [{ var: 'xs' }, { var: 'xs' }] }, { xs: [1] })).toEqual({
      ok: true,
      value: true,
    });
    expect(verdict({ '==': [{ var: 'xs' }, { var: 'xs' }] }, d)).toBe('unknown');
  });
});

describe('limits and robustness', () => {
  it('returns unknown with a finding when the budget runs out', () => {
    const deep = { reduce: [{ var: 'xs' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] };
    const xs = dataOf({ xs: { type: 'array', items: { type: 'integer' } } });
    const proof = proveRule({ '>=': [deep, 0] }, xs, { budget: 10 });
    expect(proof).toMatchObject({ verdict: 'unknown', findings: [{ keywords: ['budget'] }] });
  });

  it('counts the items it allocates, not only its steps, and leaves a rule past them unknown', () => {
    const s = dataOf({ s: { enum: ['abc', 'de'] } });
    const joined = { '==': [{ cat: [{ var: 's' }, '-', { var: 's' }] }, 'abc-de'] };
    expect(proveRule(joined, s).verdict).toBe('unknown');
    const starved = proveRule(joined, s, { itemBudget: 10 });
    expect(starved).toMatchObject({ verdict: 'unknown', findings: [{ keywords: ['budget'] }] });
    expect(starved.findings[0].message).toMatch(/allocates more than 10 items/);
    // A probe past the evaluation budget is no value and no throw either: undecided.
    const long = { '==': [{ reduce: [{ var: 'xs' }, { cat: [{ var: 'accumulator' }, 'x'] }, 'x'] }, ''] };
    const xs = dataOf({ xs: { type: 'array', items: { type: 'integer' } } });
    expect(proveRule(long, xs, { itemBudget: 3 })).toMatchObject({ verdict: 'unknown' });
    expect(proveRule(long, xs).verdict).toBe('refuted');
  });

  it('never throws on rules the validator refuses', () => {
    const d = constDomain({ a: 1 });
    const refused = [
      5,
      null,
      [],
      { method: ['a', 'b'] },
      { var: { cat: ['a'] } },
      { '==': [1], '!=': [2] },
      { var: '__proto__' },
    ];
    for (const rule of refused) {
      expect(proveRule(rule, d).verdict).toBe('unknown');
    }
  });

  it('says unknown when no data value fits the schemas', () => {
    expect(proveRule({ '==': [1, 1] }, domainOf([false]))).toMatchObject({ verdict: 'unknown' });
  });

  it('stays within the budget on wide rules', () => {
    const check = (i: number) => ({ '<=': [{ var: `k${i % 7}` }, { '+': [i, { var: 'k1' }] }] });
    const wide = { and: Array.from({ length: 200 }, (_, i) => check(i)) };
    const started = Date.now();
    const proof = proveRule(wide, constDomain({ k1: 1 }));
    expect(proof.verdict).not.toBe('refuted');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
