import type { JsonSchema } from '../verdict';
import { proveRule, type Domain } from './index';
import { dataOf } from './test-support/data-of';

const verdict = (rule: unknown, d: Domain) => proveRule(rule, d).verdict;

const nums = dataOf({
  a: { type: 'integer', minimum: 0, maximum: 5 },
  b: { type: 'number', minimum: 1, maximum: 2 },
});

describe('proveRule: arithmetic over intervals', () => {
  it('+ - * / over bounded numbers', () => {
    expect(verdict({ '<=': [{ '+': [{ var: 'a' }, { var: 'b' }] }, 7] }, nums)).toBe('proven');
    expect(verdict({ '>=': [{ '-': [{ var: 'a' }, { var: 'b' }] }, -2] }, nums)).toBe('proven');
    expect(verdict({ '<=': [{ '*': [{ var: 'a' }, { var: 'b' }] }, 10] }, nums)).toBe('proven');
    expect(verdict({ '<=': [{ '/': [{ var: 'a' }, { var: 'b' }] }, 5] }, nums)).toBe('proven');
    expect(verdict({ '>': [{ '/': [1, { var: 'a' }] }, 0] }, nums)).toBe('unknown');
    expect(verdict({ '<': [{ '-': { var: 'a' } }, 1] }, nums)).toBe('proven');
  });

  it('% keeps the dividend sign and stays below the divisor', () => {
    expect(verdict({ '<': [{ '%': [{ var: 'a' }, 3] }, 3] }, nums)).toBe('proven');
    expect(verdict({ '>=': [{ '%': [{ var: 'a' }, 3] }, 0] }, nums)).toBe('proven');
  });

  it('max and min, with Math.max() of nothing being -Infinity', () => {
    expect(verdict({ '<=': [{ max: [{ var: 'a' }, { var: 'b' }] }, 5] }, nums)).toBe('proven');
    expect(verdict({ '>=': [{ min: [{ var: 'a' }, { var: 'b' }] }, 0] }, nums)).toBe('proven');
    expect(verdict({ '<': [{ max: [] }, -1e308] }, nums)).toBe('proven');
  });

  it('+ and * parse text the way parseFloat does', () => {
    expect(verdict({ '==': [{ '+': ['1e1', 2] }, 12] }, nums)).toBe('proven');
    expect(verdict({ '==': [{ '*': ['3'] }, '3'] }, nums)).toBe('proven');
    const mixed = dataOf({ a: { type: 'integer' }, t: { type: 'string' } });
    expect(verdict({ '>': [{ '+': [{ var: 'a' }, { var: 't' }] }, 0] }, mixed)).toBe('unknown');
  });
});

describe('proveRule: text operators', () => {
  const text = dataOf({ s: { enum: ['hello', 'help'] }, t: { type: 'string', minLength: 1, maxLength: 2 } });

  it('cat, substr and in on known texts are exact', () => {
    expect(verdict({ in: ['hel', { var: 's' }] }, text)).toBe('proven');
    expect(verdict({ '==': [{ cat: [{ var: 's' }, '!'] }, 'help!'] }, text)).toBe('unknown');
    expect(verdict({ '==': [{ substr: [{ var: 's' }, 0, 3] }, 'hel'] }, text)).toBe('proven');
    expect(verdict({ '==': [{ substr: ['hello', -2] }, 'lo'] }, text)).toBe('proven');
    expect(verdict({ '==': [{ cat: ['a', null, 1] }, 'a1'] }, text)).toBe('proven');
  });

  it('uses lengths when the texts are not known', () => {
    expect(verdict({ in: [{ var: 't' }, 'x'] }, dataOf({ t: { type: 'string', minLength: 3 } }))).toBe(
      'refuted',
    );
    expect(verdict({ in: ['', { var: 't' }] }, text)).toBe('proven');
    expect(verdict({ '!!': { cat: [{ var: 't' }, ''] } }, text)).toBe('proven');
    expect(verdict({ '!=': [{ substr: [{ var: 't' }, 1] }, 'abcde'] }, text)).toBe('proven');
  });
});

describe('proveRule: arrays and quantifiers', () => {
  const items = (schema: JsonSchema, minItems: number, maxItems?: number) =>
    dataOf({
      xs: { type: 'array', minItems, ...(maxItems === undefined ? {} : { maxItems }), items: schema },
    });
  const kinds = items(
    { type: 'object', required: ['kind'], properties: { kind: { enum: ['cta', 'body'] } } },
    1,
    4,
  );

  it('all is false on an empty array; some and none follow the item domain', () => {
    expect(verdict({ all: [{ var: 'xs' }, true] }, items({}, 0, 3))).toBe('unknown');
    expect(verdict({ all: [{ var: 'xs' }, true] }, items({}, 0, 0))).toBe('refuted');
    expect(verdict({ none: [{ var: 'xs' }, { '==': [{ var: 'kind' }, 'x'] }] }, kinds)).toBe('proven');
    expect(verdict({ some: [{ var: 'xs' }, { in: [{ var: 'kind' }, ['cta', 'body']] }] }, kinds)).toBe(
      'proven',
    );
    const found = proveRule({ some: [{ var: 'xs' }, { '==': [{ var: 'kind' }, 'cta'] }] }, kinds);
    expect(found.verdict).toBe('unknown');
    expect(found.findings.map((f) => f.pointer)).toContain('/xs/*/kind');
  });

  it('map, filter and merge keep lengths and items', () => {
    const ints = items({ type: 'integer', minimum: 1, maximum: 3 }, 2, 2);
    const doubled = { map: [{ var: 'xs' }, { '*': [{ var: '' }, 2] }] };
    expect(verdict({ all: [doubled, { '<=': [{ var: '' }, 6] }] }, ints)).toBe('proven');
    expect(verdict({ none: [{ filter: [{ var: 'xs' }, { '>': [{ var: '' }, 5] }] }, true] }, ints)).toBe(
      'proven',
    );
    expect(verdict({ all: [{ merge: [{ var: 'xs' }, [1]] }, { '<=': [{ var: '' }, 3] }] }, ints)).toBe(
      'proven',
    );
    // One domain covers every item, so membership in a mixed array stays undecided.
    expect(verdict({ in: ['x', { merge: [['x'], { var: 'xs' }] }] }, ints)).toBe('unknown');
    expect(verdict({ some: [{ merge: [{ var: 'xs' }, 9] }, { '>=': [{ var: '' }, 1] }] }, ints)).toBe(
      'proven',
    );
  });

  it('reduce follows short folds and widens long ones', () => {
    const sum = { reduce: [{ var: 'xs' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] };
    expect(verdict({ '<=': [sum, 6] }, items({ type: 'integer', minimum: 0, maximum: 2 }, 0, 3))).toBe(
      'proven',
    );
    expect(verdict({ '>=': [sum, 0] }, items({ type: 'integer', minimum: 0, maximum: 2 }, 0))).toBe('proven');
    expect(verdict({ '<=': [sum, 6] }, items({ type: 'integer', minimum: 0, maximum: 2 }, 0))).toBe(
      'unknown',
    );
    expect(verdict({ '==': [sum, 0] }, items({ type: 'integer' }, 0, 0))).toBe('proven');
  });

  it('missing_some counts the present keys', () => {
    const d = dataOf({ a: { type: 'string', minLength: 1 }, b: { type: 'string' } }, ['b']);
    expect(verdict({ '!': { missing_some: [1, ['a', 'b']] } }, d)).toBe('proven');
    expect(verdict({ '!': { missing_some: [2, ['a', 'b']] } }, d)).toBe('unknown');
    expect(verdict({ '!': { missing_some: [1, ['c', 'd']] } }, d)).toBe('refuted');
    // Asking for more keys than listed returns the missing ones, which may be none.
    expect(verdict({ '!': { missing_some: [3, ['a', 'b']] } }, d)).toBe('unknown');
  });
});
