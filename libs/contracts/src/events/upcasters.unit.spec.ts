import { upcastPayload } from './upcasters';

describe('upcasters: stored events read in today\u2019s shape', () => {
  it('moves a plan_generated bundle from the top of the payload under diagnostics', () => {
    const old = {
      planVersion: 1,
      plan: { nodes: [] },
      nodes: [],
      status: 'accepted_with_findings',
      satisfactionScore: 0.5,
      failures: [],
      warnings: [{ cause: 'unsatisfied_soft' }],
      infos: [],
      planHash: 'h',
    };
    expect(upcastPayload('plan_generated', old)).toEqual({
      planVersion: 1,
      plan: { nodes: [] },
      nodes: [],
      planHash: 'h',
      diagnostics: {
        status: 'accepted_with_findings',
        satisfactionScore: 0.5,
        failures: [],
        warnings: [{ cause: 'unsatisfied_soft' }],
        infos: [],
      },
    });
  });

  it('gives an old plan_updated without findings an accepted bundle, and leaves today\u2019s shape alone', () => {
    const old = {
      previousVersion: 1,
      version: 2,
      plan: {},
      nodes: [],
      trigger: {},
      planHash: 'h',
      satisfactionScore: 1,
    };
    expect(upcastPayload('plan_updated', old)).toMatchObject({
      diagnostics: { status: 'accepted', satisfactionScore: 1, failures: [] },
    });
    const current = { planVersion: 1, diagnostics: { status: 'accepted' } };
    expect(upcastPayload('plan_generated', current)).toBe(current);
    expect(upcastPayload('node_complete', { nodeId: 'n' })).toEqual({ nodeId: 'n' });
  });

  it('reads an old policy_triggered `action` as `actionDetails`, and leaves today\u2019s shape alone', () => {
    const decision = { decision: 'DENY', reason: 'low', severity: 'hard' };
    const old = { policyId: 'p', trigger: { kind: 'manual' }, action: { type: 'replan' }, decision };
    expect(upcastPayload('policy_triggered', old)).toEqual({
      policyId: 'p',
      trigger: { kind: 'manual' },
      actionDetails: { type: 'replan' },
      decision,
    });
    const current = { policyId: 'p', trigger: {}, actionDetails: { type: 'pause' }, decision };
    expect(upcastPayload('policy_triggered', current)).toBe(current);
  });
});
