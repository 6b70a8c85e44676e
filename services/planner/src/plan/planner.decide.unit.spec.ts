import { evolveRun, initialRunState, type RunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import { decidePlan } from './planner.decide';
import { planRuleBased } from './rule-based.planner';
import { planHash } from './planner-input';
import { planOf, request, sampleEnvelope } from './test.fixture';

const envelope = sampleEnvelope();
const owner = { principal: 'client-a', role: 'client' };

function given(...rest: Array<{ type: string; payload: unknown; id?: string }>): RunState {
  const events = givenEvents('run-r1', [{ type: 'start', payload: { runId: 'r1', envelope, normalization: [], owner } }, ...rest]);
  return events.reduce(evolveRun, initialRunState());
}

describe('decidePlan', () => {
  const requested = { type: 'plan_requested', id: 'req-1', payload: { attempt: 1, reason: 'initial', policyKeys: [] } };

  it('appends plan_drafted with the plan and its hash', () => {
    const result = planRuleBased(request(envelope));
    const plan = planOf(result);
    expect(decidePlan(given(requested), 'req-1', { kind: 'planned', result })).toEqual([{ type: 'plan_drafted', payload: { attempt: 1, plan, planHash: planHash(plan) } }]);
  });

  it('carries the planner error of a fallback draft', () => {
    const output = planRuleBased(request(envelope));
    const error = { code: 'PLANNER_TIMEOUT' as const, message: 'no answer', retryable: true, details: {} };
    const withError = { ...output, metadata: { plannerError: error } } as never;
    expect(decidePlan(given(requested), 'req-1', { kind: 'planned', result: withError })[0]).toMatchObject({ payload: { plannerError: error } });
  });

  it('fails the run with the planner error code and a clear reason', () => {
    const result = { code: 'PLANNER_UNRESOLVABLE' as const, message: 'the plan must both have and not have validation nodes', retryable: false, details: {} };
    expect(decidePlan(given(requested), 'req-1', { kind: 'planned', result })).toEqual([
      { type: 'run_failed', payload: { code: 'PLANNER_UNRESOLVABLE', reason: 'planner: the plan must both have and not have validation nodes' } },
    ]);
  });

  it('fails the run with replan_limit past FLEX_MAX_REPLANS', () => {
    expect(decidePlan(given(requested), 'req-1', { kind: 'replan_limit', replans: 4, max: 3 })).toEqual([
      { type: 'run_failed', payload: { code: 'replan_limit', reason: 'replan 4 refused: a run may replan at most 3 time(s) (FLEX_MAX_REPLANS)' } },
    ]);
  });

  it('decides nothing for a request that is no longer pending', () => {
    const result = planRuleBased(request(envelope));
    expect(decidePlan(given(requested), 'req-0', { kind: 'planned', result })).toEqual([]);
    const drafted = { type: 'plan_drafted', payload: { attempt: 1, plan: planOf(result), planHash: planHash(planOf(result)) } };
    expect(decidePlan(given(requested, drafted), 'req-1', { kind: 'planned', result })).toEqual([]);
  });
});
