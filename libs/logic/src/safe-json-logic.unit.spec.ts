import { evaluateConstraints, evaluateRule } from './index';

describe('safe JSONLogic', () => {
  it('evaluates ordinary rules', () => {
    expect(evaluateRule({ '>=': [{ var: 'qaFindings.overallScore' }, 0.8] }, { qaFindings: { overallScore: 0.9 } })).toEqual({ ok: true, value: true });
    expect(evaluateRule({ '==': [{ var: 'copyVariants.length' }, 2] }, { copyVariants: [1, 2] })).toEqual({ ok: true, value: true });
    expect(evaluateRule({ var: ['missing.path', 'dflt'] }, {})).toEqual({ ok: true, value: 'dflt' });
  });

  it.each([['constructor'], ['__proto__'], ['copyVariants.constructor'], ['a.toString'], ['copyVariants.map']])('never reads the inherited %s', (path) => {
    const result = evaluateRule({ var: path }, { a: {}, copyVariants: [] });
    expect(result.ok ? result.value : null).toBeNull();
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
