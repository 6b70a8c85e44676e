import jsonLogic from 'json-logic-js';
import { LIMITS } from '../shared/limits';
import { rewriteBetween } from './between-rewrite';
import { JSONLOGIC_OPERATORS, validateJsonLogic } from './jsonlogic-rules';

const nest = (depth: number): unknown => (depth === 0 ? { var: 'x' } : { '!': [nest(depth - 1)] });

describe('validateJsonLogic', () => {
  it.each<[string, unknown]>([
    ['a comparison', { '<': [{ var: 'qaFindings.overallScore' }, 0.6] }],
    [
      'and/or nesting',
      { and: [{ '>=': [{ var: 'a' }, 1] }, { or: [{ '!': { var: 'b' } }, { '==': [{ var: 'c' }, 'x'] }] }] },
    ],
    ['a three-way <=', { '<=': [0.6, { var: 'score' }, 0.8] }],
    ['var with a default rule', { var: ['missing.path', { cat: ['a', 'b'] }] }],
    ['numeric var', { var: 1 }],
    ['whole-data var', { var: '' }],
    ['missing and missing_some', { and: [{ missing: ['a', 'b.c'] }, { missing_some: [1, ['x', 'y']] }] }],
    ['array operations', { all: [{ var: 'copyVariants' }, { '>': [{ var: 'headline.length' }, 0] }] }],
    ['reduce', { reduce: [{ var: 'xs' }, { '+': [{ var: 'current' }, { var: 'accumulator' }] }, 0] }],
    ['a literal data array', { in: ['b', ['a', 'b']] }],
  ])('accepts %s', (_name, rule) => {
    expect(validateJsonLogic(rule, 'cond')).toEqual([]);
  });

  it.each<[string, unknown, { path: string; code: string; hint?: RegExp }]>([
    [
      'method',
      { method: [{ var: 'x' }, 'toString'] },
      { path: 'cond.method', code: 'jsonlogic_operator_not_allowed', hint: /never allowed/ },
    ],
    [
      'log',
      { and: [{ log: 'x' }] },
      { path: 'cond.and[0].log', code: 'jsonlogic_operator_not_allowed', hint: /allowed operators/ },
    ],
    [
      'between',
      { between: [{ var: 'x' }, 1, 2] },
      { path: 'cond.between', code: 'jsonlogic_operator_not_allowed', hint: /<=/ },
    ],
    [
      'an unknown operator',
      { '<': [{ nope: 1 }, 2] },
      { path: 'cond["<"][0].nope', code: 'jsonlogic_operator_not_allowed' },
    ],
    [
      'a var through __proto__',
      { var: '__proto__.polluted' },
      { path: 'cond.var', code: 'jsonlogic_forbidden_path' },
    ],
    [
      'a var through constructor',
      { '==': [{ var: ['a.constructor', 1] }, 1] },
      { path: 'cond["=="][0].var[0]', code: 'jsonlogic_forbidden_path' },
    ],
    [
      'missing through prototype',
      { missing: ['ok', 'x.prototype'] },
      { path: 'cond.missing[1]', code: 'jsonlogic_forbidden_path' },
    ],
    [
      'missing_some through __proto__',
      { missing_some: [1, ['__proto__']] },
      { path: 'cond.missing_some[1][0]', code: 'jsonlogic_forbidden_path' },
    ],
    [
      'a computed var path',
      { var: { cat: ['__pro', 'to__'] } },
      { path: 'cond.var', code: 'jsonlogic_dynamic_path' },
    ],
    ['a two-key object', { '==': [1, 1], '!=': [1, 2] }, { path: 'cond', code: 'invalid_jsonlogic' }],
    ['an empty object', {}, { path: 'cond', code: 'invalid_jsonlogic' }],
    ['a bare literal', true, { path: 'cond', code: 'invalid_jsonlogic' }],
  ])('rejects %s', (_name, rule, expected) => {
    const issues = validateJsonLogic(rule, 'cond');
    expect(issues.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: expected.path, code: expected.code },
    ]);
    if (expected.hint) expect(issues[0].hint).toMatch(expected.hint);
  });

  it('caps the depth', () => {
    expect(validateJsonLogic(nest(LIMITS.jsonLogicMaxDepth / 2 - 1))).toEqual([]);
    expect(validateJsonLogic(nest(LIMITS.jsonLogicMaxDepth)).map((i) => i.code)).toEqual([
      'jsonlogic_too_deep',
    ]);
  });

  it('caps the node count', () => {
    const wide = { and: Array.from({ length: LIMITS.jsonLogicMaxNodes }, () => ({ '==': [1, 1] })) };
    expect(validateJsonLogic(wide).map((i) => i.code)).toEqual(['jsonlogic_too_large']);
  });

  it('only allows operators json-logic-js implements', () => {
    for (const op of JSONLOGIC_OPERATORS) {
      const args =
        op === 'var'
          ? 'a'
          : op === 'missing_some'
            ? [0, ['a']]
            : op === 'reduce'
              ? [[], 1, 0]
              : op === 'substr'
                ? ['abc', 1]
                : [1, 1];
      expect(() => jsonLogic.apply({ [op]: args } as jsonLogic.RulesLogic, { a: 1 })).not.toThrow();
    }
  });

  it('checks the count of missing_some like any operand', () => {
    expect(validateJsonLogic({ missing_some: [{ log: 1 }, ['a']] }, 'cond')).toEqual([
      expect.objectContaining({ path: 'cond.missing_some[0].log', code: 'jsonlogic_operator_not_allowed' }),
    ]);
    expect(validateJsonLogic({ missing_some: [{ '+': [1, 1] }, ['a']] })).toEqual([]);
  });

  it('prefixes root paths correctly', () => {
    expect(validateJsonLogic({ method: [] })[0].path).toBe('method');
    expect(validateJsonLogic({ and: [{ method: [] }] }, 'x[2]')[0].path).toBe('x[2].and[0].method');
  });
});

describe('the cost caps of a rule', () => {
  const digits = (n: number) => Array.from({ length: n }, (_, i) => i % 10);
  const body = { '>=': [{ var: '' }, 0] };

  it('accepts three iterations nested in one another, over data', () => {
    const rule = { all: [{ var: 'xs' }, { some: [{ var: 'ys' }, { none: [{ var: 'zs' }, body] }] }] };
    expect(validateJsonLogic(rule)).toEqual([]);
  });

  it('refuses a fourth, at its path (iterations in a source do not nest)', () => {
    const inner = { map: [{ var: 'a' }, { filter: [{ var: 'b' }, body] }] };
    const rule = { all: [{ map: [{ var: 'xs' }, body] }, { some: [{ var: 'ys' }, inner] }] };
    expect(validateJsonLogic(rule, 'cond')).toEqual([
      expect.objectContaining({
        path: 'cond.all[1].some[1].map[1].filter',
        code: 'jsonlogic_iteration_too_deep',
        message: expect.stringMatching(/at most 3 may nest/),
      }),
    ]);
  });

  it('refuses literal arrays that multiply past the budget, at the node where they cross it', () => {
    const rule = { and: [{ all: [digits(400), { all: [digits(400), body] }] }] };
    expect(validateJsonLogic(rule, 'cond')).toEqual([
      expect.objectContaining({
        path: 'cond.and[0].all',
        code: 'jsonlogic_too_costly',
        message: expect.stringMatching(/over the evaluation budget of 100000 operations and 300000 items/),
      }),
    ]);
    expect(validateJsonLogic({ all: [digits(100), { all: [digits(100), body] }] })).toEqual([]);
  });

  it('counts texts a rule builds, and every branch', () => {
    const long = 'x'.repeat(LIMITS.jsonLogicMaxItems / 2);
    expect(validateJsonLogic({ '==': [{ cat: [long, long, long] }, ''] }).map((i) => i.code)).toEqual([
      'jsonlogic_too_costly',
    ]);
    const bomb = { map: [digits(400), { map: [digits(400), 1] }] };
    expect(validateJsonLogic({ if: [{ var: 'never' }, bomb, 1] }).map((i) => i.path)).toEqual(['if[1].map']);
  });
});

describe('rewriteBetween', () => {
  it('rewrites nested legacy between into an inclusive <= with the same truth table', () => {
    const legacy = {
      and: [{ between: [{ var: 'score' }, 0.6, 0.8] }, { '!': { between: [{ var: 'n' }, 1, 3] } }],
    };
    const rewrites: Array<{ path: PropertyKey[]; from: unknown }> = [];
    const rule = rewriteBetween(legacy, rewrites);
    expect(rule).toEqual({
      and: [{ '<=': [0.6, { var: 'score' }, 0.8] }, { '!': { '<=': [1, { var: 'n' }, 3] } }],
    });
    expect(rewrites.map((r) => r.path)).toEqual([
      ['and', 0],
      ['and', 1, '!'],
    ]);
    expect(validateJsonLogic(rule)).toEqual([]);
    for (const [score, n, expected] of [
      [0.6, 0, true],
      [0.8, 4, true],
      [0.7, 2, false],
      [0.59, 0, false],
      [0.81, 0, false],
    ] as const) {
      expect(jsonLogic.apply(rule as jsonLogic.RulesLogic, { score, n })).toBe(expected);
    }
  });

  it('leaves a malformed between and the input untouched', () => {
    const legacy = { between: [1, 2] };
    expect(rewriteBetween(legacy)).toEqual({ between: [1, 2] });
    const input = { between: [{ var: 'x' }, 1, 2] };
    rewriteBetween(input);
    expect(input).toEqual({ between: [{ var: 'x' }, 1, 2] });
  });
});
