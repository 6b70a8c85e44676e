import {
  PlanRejectedPayloadSchema,
  registrySnapshotOf,
  RunFailedPayloadSchema,
  type PlannerError,
} from '@flex/contracts';
import { evolveRun, initialRunState, replanInFlight, type RunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import { decidePlan, type Planned } from './planner.decide';
import { planRuleBased } from './rule-based.planner';
import { planHash } from './planner-input';
import { planOf, registrations, request, sampleEnvelope } from './test.fixture';

const envelope = sampleEnvelope();
const owner = { principal: 'client-a', role: 'client' };
const registry = registrySnapshotOf(registrations);
const plan = { ...planOf(planRuleBased(request(envelope))), planVersion: 1 };
const accepted = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
const unplannable: PlannerError = {
  code: 'PLANNER_NO_CAPABILITIES',
  message: 'no active capability produces copyVariants',
  retryable: false,
  details: { missingFacets: ['copyVariants'] },
};
const answer = (result: Planned['result']): Planned => ({ kind: 'planned', result, registry, known: [] });
const nodeFailed = { kind: 'node_failed', nodeId: 'execution-1', capabilityId: 'W.write', error: 'down' };
const policyAsked = { kind: 'onNodeComplete', nodeId: 'validation-1', policyId: 'low_qa' };

type Given = { type: string; payload: unknown; id?: string };

/** A run on plan v1 whose replan (asked for `trigger`) the planner is now asked for, as `req-2`; then `more`. */
function replanning(trigger: Record<string, unknown>, ...more: Given[]): RunState {
  return givenEvents('run-r1', [
    { type: 'start', payload: { runId: 'r1', envelope, normalization: [], owner } },
    { type: 'plan_requested', id: 'req-1', payload: { attempt: 1, reason: 'initial', policyKeys: [] } },
    {
      type: 'plan_drafted',
      id: 'draft-1',
      payload: { attempt: 1, plan, planHash: planHash(plan), registry },
    },
    {
      type: 'plan_generated',
      payload: {
        planVersion: 1,
        plan,
        nodes: [],
        planHash: planHash(plan),
        metadata: plan.metadata,
        registry,
        diagnostics: accepted,
      },
    },
    {
      type: 'plan_requested',
      id: 'req-2',
      payload: {
        attempt: 2,
        reason: 'replan',
        policyKeys: [],
        replan: { trigger, previousVersion: 1, completedNodeIds: [] },
      },
    },
    ...more,
  ]).reduce(evolveRun, initialRunState());
}

describe('decidePlan: the planner finds no plan', () => {
  it('for a replan a node failure asked for: only plan_rejected (the planner error, its diagnostics, the registry, no draft)', () => {
    const state = replanning(nodeFailed);
    const events = decidePlan(state, 'req-2', answer(unplannable));
    expect(events.map((e) => e.type)).toEqual(['plan_rejected']);
    const rejected = PlanRejectedPayloadSchema.parse(events[0].payload);
    expect(rejected).toMatchObject({ source: 'planner', attempt: 2, plannerError: unplannable, registry });
    expect(rejected).not.toHaveProperty('planHash');
    expect(rejected.diagnostics).toMatchObject({
      status: 'rejected',
      satisfactionScore: 0,
      failures: [{ cause: 'missing_producer', constraintId: 'facet.copyVariants' }],
    });
  });

  it('then the run keeps its plan: the replan is refused, and nothing is in flight', () => {
    const [rejected] = decidePlan(replanning(nodeFailed), 'req-2', answer(unplannable));
    const after = replanning(nodeFailed, rejected);
    expect(after).toMatchObject({
      status: 'running',
      planVersion: 1,
      replan: { outcome: 'refused', trigger: nodeFailed },
    });
    expect(replanInFlight(after)).toBe(false);
  });

  it('for a replan a policy asked for: the run fails, as before', () => {
    const [event] = decidePlan(replanning(policyAsked), 'req-2', answer(unplannable));
    expect(event.type).toBe('run_failed');
    expect(RunFailedPayloadSchema.parse(event.payload)).toMatchObject({
      code: 'PLANNER_NO_CAPABILITIES',
      reason: 'planner: no active capability produces copyVariants',
      registry,
      diagnostics: { status: 'rejected' },
    });
  });

  it('for the first plan: the run fails, as before', () => {
    const first = givenEvents('run-r1', [
      { type: 'start', payload: { runId: 'r1', envelope, normalization: [], owner } },
      { type: 'plan_requested', id: 'req-1', payload: { attempt: 1, reason: 'initial', policyKeys: [] } },
    ]).reduce(evolveRun, initialRunState());
    expect(decidePlan(first, 'req-1', answer(unplannable)).map((e) => e.type)).toEqual(['run_failed']);
  });

  it('past the replan bound the run fails with replan_limit, whoever asked (the planner is the bound of last resort)', () => {
    const outcome = { kind: 'replan_limit' as const, code: 'replan_limit' as const, reason: 'replan 4 of 3' };
    expect(decidePlan(replanning(nodeFailed), 'req-2', outcome)).toEqual([
      { type: 'run_failed', payload: { code: 'replan_limit', reason: 'replan 4 of 3' } },
    ]);
  });

  it('decides nothing for a request no longer asked (a repeated delivery after the rejection)', () => {
    const [rejected] = decidePlan(replanning(nodeFailed), 'req-2', answer(unplannable));
    const after = replanning(nodeFailed, rejected);
    expect(decidePlan(after, 'req-2', answer(unplannable))).toEqual([]);
  });
});
