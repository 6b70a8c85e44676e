import fc from 'fast-check';
import { validateJsonLogic } from '@flex/contracts';
import { evaluateRule, interpret, Meter } from './index';
import { oracleApply, type OracleOutcome } from './test-support/json-logic-oracle';
import { jsonData, objectData, ruleArb, topRuleArb } from './test-support/logic.arbitraries';

// Differential: Flex's interpreter against json-logic-js (the oracle, hardened as Flex ran it
// before), on random rules over every allowed operator and random data. Within its budget the
// interpreter must give the same value (Object.is on numbers: -0 and NaN count), or throw when
// json-logic-js throws. fast-check prints the seed and the shrunk counterexample on failure.

/** A budget no random rule here comes near: this checks meaning, not cost. */
const ROOMY = { operations: 10_000_000, items: 10_000_000 };
const RUNS = Number(process.env.FLEX_LOGIC_DIFFERENTIAL_RUNS ?? 20_000);

function outcomeOf(rule: unknown, data: unknown): OracleOutcome {
  try {
    return { ok: true, value: interpret(rule, data, new Meter(ROOMY)) };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

function expectSame(actual: OracleOutcome, expected: OracleOutcome): void {
  if (expected.ok) expect(actual).toStrictEqual(expected);
  else expect(actual).toMatchObject({ ok: false });
}

const tally = { same: 0, threw: 0, validated: 0 };

describe('the interpreter evaluates as json-logic-js does', () => {
  afterAll(() => {
    // Not a claim: a guard that the generators reach values, throws and validated rules alike.
    expect(tally.threw).toBeGreaterThan(RUNS / 200);
    expect(tally.validated).toBeGreaterThan(RUNS / 4);
  });

  it('on random rules over random data: the same value, or a throw where it throws', () => {
    const data = fc.oneof(objectData, jsonData);
    fc.assert(
      fc.property(ruleArb(4), data, (rule, value) => {
        const before = JSON.stringify(value);
        const expected = oracleApply(rule, value);
        expectSame(outcomeOf(rule, value), expected);
        expect(JSON.stringify(value)).toBe(before);
        tally[expected.ok ? 'same' : 'threw'] += 1;
      }),
      { numRuns: RUNS },
    );
  });

  it('through evaluateRule under the default budget, for every rule the validator accepts', () => {
    const valid = topRuleArb(4).filter((rule) => validateJsonLogic(rule).length === 0);
    fc.assert(
      fc.property(valid, objectData, (rule, value) => {
        tally.validated += 1;
        const expected = oracleApply(rule, value);
        // The default budget: ordinary rules over ordinary data never come near it.
        const actual = evaluateRule(rule, value);
        if (expected.ok) expect(actual).toStrictEqual(expected);
        else expect(actual).toMatchObject({ ok: false, code: 'evaluation_error' });
      }),
      { numRuns: RUNS / 2 },
    );
  });

  it.each<[string, unknown, unknown]>([
    ['-0 through unary minus', { '-': [0] }, {}],
    ['+ parses texts, dropping -0', { '+': [{ var: 'a' }, '-0'] }, { a: '1e3' }],
    ['* of one operand returns it as it is', { '*': ['3'] }, {}],
    ['* of nothing throws', { '*': [] }, {}],
    ['substr with a negative length', { substr: ['abcdef', 1, -2] }, {}],
    ['substr with a text length', { substr: ['abcdef', 1, '-2'] }, {}],
    ['in over an object owning indexOf throws', { in: ['a', { var: 'a' }] }, { a: { indexOf: 1 } }],
    ['in over an object', { in: ['a', { var: 'a' }] }, { a: { b: 1 } }],
    ['cat of an object owning toString throws', { cat: [{ var: 'a' }] }, { a: { toString: 1 } }],
    ['== of an array and a text', { '==': [{ var: 'xs' }, '1,2'] }, { xs: [1, 2] }],
    ['< of three, short-circuit', { '<': [2, 1, { var: 'a' }] }, { a: { toString: 1 } }],
    ['missing_some with a null list throws', { missing_some: [1, null] }, {}],
    ['missing_some of a text', { missing_some: [1, 'a'] }, { a: 1 }],
    ['reduce without an initial value', { reduce: [[1, 2], { '+': [{ var: 'accumulator' }, 1] }] }, {}],
    ['and of nothing', { and: [] }, {}],
    ['if of nothing', { if: [] }, {}],
    ['map of a non-array', { map: [{ var: 'a' }, 1] }, { a: 'abc' }],
    ['min of an array', { min: [[3], '2'] }, {}],
  ])('%s', (_name, rule, data) => {
    expectSame(outcomeOf(rule, data), oracleApply(rule, data));
  });
});
