import { evaluateConstraints, evaluateRule } from './index';

describe('safe JSONLogic', () => {
  it('evaluates ordinary rules', () => {
    expect(
      evaluateRule(
        { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] },
        { qaFindings: { overallScore: 0.9 } },
      ),
    ).toEqual({ ok: true, value: true });
    expect(evaluateRule({ '==': [{ var: 'copyVariants.length' }, 2] }, { copyVariants: [1, 2] })).toEqual({
      ok: true,
      value: true,
    });
    expect(evaluateRule({ var: ['missing.path', 'dflt'] }, {})).toEqual({ ok: true, value: 'dflt' });
  });

  it.each([
    ['constructor'],
    ['__proto__'],
    ['copyVariants.constructor'],
    ['a.toString'],
    ['copyVariants.map'],
  ])('never reads the inherited %s', (path) => {
    const result = evaluateRule({ var: path }, { a: {}, copyVariants: [] });
    expect(result.ok ? result.value : null).toBeNull();
  });

  it('reads the length of a string in UTF-16 units, as JavaScript does', () => {
    const data = { copyVariants: [{ body: 'abc' }, { body: '' }], emoji: '\u{1F600}' };
    expect(evaluateRule({ var: 'copyVariants.0.body.length' }, data)).toEqual({ ok: true, value: 3 });
    expect(evaluateRule({ var: 'emoji.length' }, data)).toEqual({ ok: true, value: 2 });
    const short = { all: [{ var: 'copyVariants' }, { '<=': [{ var: 'body.length' }, 2] }] };
    expect(evaluateRule(short, data)).toEqual({ ok: true, value: false });
    const nonEmpty = { all: [{ var: 'copyVariants' }, { '>=': [{ var: 'body.length' }, 1] }] };
    expect(evaluateRule(nonEmpty, data)).toEqual({ ok: true, value: false });
    expect(evaluateRule(nonEmpty, { copyVariants: [{ body: 'a' }] })).toEqual({ ok: true, value: true });
    const items = { all: [{ var: 'tags' }, { var: 'length' }] };
    expect(evaluateRule(items, { tags: ['a', 'bc'] })).toEqual({ ok: true, value: true });
    expect(evaluateRule(items, { tags: ['a', ''] })).toEqual({ ok: true, value: false });
  });

  const elsewhere = [
    's.0',
    's.toString',
    's.length.toFixed',
    's.constructor',
    's.__proto__',
    'n.length',
    'b.length',
  ];
  it.each(elsewhere.map((p) => [p]))('reads nothing else of a string or scalar: %s', (path) => {
    // Refused by the validator (forbidden segments) or ended on the default: never read either way.
    const result = evaluateRule({ var: [path, 'dflt'] }, { s: 'abc', n: 5, b: true });
    expect(result.ok ? result.value : 'dflt').toBe('dflt');
  });

  it('refuses `method` and unknown operators before evaluating', () => {
    const result = evaluateRule({ method: [{ var: 'a' }, 'toString'] }, { a: 1 });
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/method/) });
  });

  it('scores observed satisfaction with the spec weights and fails closed on errors', () => {
    const evaluation = evaluateConstraints({ qaFindings: { overallScore: 0.5 }, copyVariants: [1, 2] }, [
      { constraintId: 'min_qa', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] } },
      { constraintId: 'exact_two', level: 'soft', expr: { '==': [{ var: 'copyVariants.length' }, 2] } },
      { constraintId: 'tone', level: 'informational', expr: { '==': [1, 2] } },
    ]);
    expect(evaluation.observedSatisfaction).toBeCloseTo(0.5 / 1.5, 6);
    expect(evaluation.hardFailures.map((f) => f.constraintId)).toEqual(['min_qa']);
  });
});
