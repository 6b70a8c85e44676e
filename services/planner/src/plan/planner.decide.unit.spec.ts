import {
  registrySnapshotOf,
  RunFailedPayloadSchema,
  PlanDraftedPayloadSchema,
  type PlannerError,
} from '@flex/contracts';
import { evolveRun, initialRunState, replanLimitFailure, type RunState } from '@flex/run-model';
import { givenEvents } from '@flex/testing';
import { decidePlan, type Planned } from './planner.decide';
import { planRuleBased } from './rule-based.planner';
import { planHash } from './planner-input';
import { planOf, registrations, request, sampleEnvelope } from './test.fixture';

const envelope = sampleEnvelope();
const owner = { principal: 'client-a', role: 'client' };
const registry = registrySnapshotOf(registrations);

function given(...rest: Array<{ type: string; payload: unknown; id?: string }>): RunState {
  const events = givenEvents('run-r1', [
    { type: 'start', payload: { runId: 'r1', envelope, normalization: [], owner } },
    ...rest,
  ]);
  return events.reduce(evolveRun, initialRunState());
}

const planned = (result: Planned['result'], known: Planned['known'] = []): Planned => ({
  kind: 'planned',
  result,
  registry,
  known,
});

describe('decidePlan', () => {
  const requested = {
    type: 'plan_requested',
    id: 'req-1',
    payload: { attempt: 1, reason: 'initial', policyKeys: [] },
  };

  it('appends plan_drafted with the plan, its hash and the registry the planner drafted over', () => {
    const result = planRuleBased(request(envelope));
    const plan = planOf(result);
    const events = decidePlan(given(requested), 'req-1', planned(result));
    expect(events).toEqual([
      { type: 'plan_drafted', payload: { attempt: 1, plan, planHash: planHash(plan), registry } },
    ]);
    expect(PlanDraftedPayloadSchema.safeParse(events[0].payload).success).toBe(true);
  });

  it('binds the draft of any planner to the contract before the proof (an LLM draft arrives unbound)', () => {
    const output = planRuleBased(request(envelope));
    const unbound = {
      ...planOf(output),
      nodes: planOf(output).nodes.map(({ bindings: _dropped, ...n }) => n),
    };
    const [event] = decidePlan(given(requested), 'req-1', planned({ ...output, plan: unbound } as never));
    const drafted = PlanDraftedPayloadSchema.parse(event.payload);
    expect(drafted.plan).toEqual(planOf(output));
    expect(drafted.plan.nodes.find((n) => n.id === 'execution-1')?.bindings?.inputs).toEqual({
      planKnobs: { variantCount: 2 },
    });
  });

  it('carries the planner error of a fallback draft', () => {
    const output = planRuleBased(request(envelope));
    const error = { code: 'PLANNER_TIMEOUT' as const, message: 'no answer', retryable: true, details: {} };
    const withError = { ...output, metadata: { plannerError: error } } as never;
    expect(decidePlan(given(requested), 'req-1', planned(withError))[0]).toMatchObject({
      payload: { plannerError: error },
    });
  });

  it('fails the run with the planner error code, a clear reason, diagnostics and the registry', () => {
    const result: PlannerError = {
      code: 'PLANNER_UNRESOLVABLE',
      message: 'the plan must both have and not have validation nodes',
      retryable: false,
      details: {},
    };
    const [event] = decidePlan(given(requested), 'req-1', planned(result));
    const payload = RunFailedPayloadSchema.parse(event.payload);
    expect(event.type).toBe('run_failed');
    expect(payload).toMatchObject({
      code: 'PLANNER_UNRESOLVABLE',
      reason: 'planner: the plan must both have and not have validation nodes',
      registry,
    });
    expect(payload.diagnostics).toMatchObject({
      status: 'rejected',
      satisfactionScore: 0,
      failures: [
        {
          severity: 'hard',
          status: 'unsatisfied',
          cause: 'schema_incompatible',
          constraintId: 'planner.planner_unresolvable',
          constraint: result.message,
        },
      ],
    });
  });

  it('names each facet no active capability produces, with its property path and a suggestion', () => {
    const result = planRuleBased(
      request(envelope, {
        capabilities: registrations.filter((r) => !r.outputContract.includes('copyVariants')),
      }),
    );
    const writer = registrations.find((r) => r.outputContract.includes('copyVariants'));
    if (!writer) throw new Error('the reference agents include a writer');
    const inactive = [
      {
        capabilityId: writer.capabilityId,
        status: 'inactive' as const,
        outputContract: writer.outputContract,
      },
    ];
    const [event] = decidePlan(given(requested), 'req-1', planned(result, inactive));
    const payload = RunFailedPayloadSchema.parse(event.payload);
    expect(payload.code).toBe('PLANNER_NO_CAPABILITIES');
    expect(payload.diagnostics?.failures).toEqual([
      {
        severity: 'hard',
        status: 'unsatisfied',
        cause: 'missing_producer',
        constraintId: 'facet.copyVariants',
        constraint:
          'an active capability produces copyVariants (asked for at outputContract.schema/properties/copyVariants)',
        suggestion: `${writer.capabilityId} is registered but inactive: start its agent so it heartbeats again (each produces copyVariants).`,
        details: {
          check: 'missing_producer',
          facet: 'copyVariants',
          path: '/properties/copyVariants',
          constraints: [],
        },
      },
    ]);
  });

  it('says when the producer is there but the caller forbade it', () => {
    const env = sampleEnvelope(
      (raw) => (raw.policies = { planner: { selection: { forbid: ['ContentGeneratorAgent'] } } }),
    );
    const result = planRuleBased(request(env));
    const state = givenEvents('run-r1', [
      { type: 'start', payload: { runId: 'r1', envelope: env, normalization: [], owner } },
      requested,
    ]).reduce(evolveRun, initialRunState());
    const known = registrations.map((r) => ({
      capabilityId: r.capabilityId,
      status: 'active' as const,
      outputContract: r.outputContract,
    }));
    const [event] = decidePlan(state, 'req-1', planned(result, known));
    expect(RunFailedPayloadSchema.parse(event.payload).diagnostics?.failures).toContainEqual(
      expect.objectContaining({
        constraintId: 'facet.copyVariants',
        suggestion:
          'ContentGeneratorAgent.linkedinVariants is excluded by policies.planner.selection.forbid: allow it (each produces copyVariants).',
      }),
    );
  });

  it('names a required capability that is not registered', () => {
    const env = sampleEnvelope(
      (raw) => (raw.policies = { planner: { selection: { require: ['Ghost.agent'] } } }),
    );
    const result = planRuleBased(request(env));
    const state = givenEvents('run-r1', [
      { type: 'start', payload: { runId: 'r1', envelope: env, normalization: [], owner } },
      requested,
    ]).reduce(evolveRun, initialRunState());
    const [event] = decidePlan(state, 'req-1', planned(result));
    expect(RunFailedPayloadSchema.parse(event.payload).diagnostics?.failures).toEqual([
      expect.objectContaining({
        cause: 'missing_producer',
        constraintId: 'policy.selection.require',
        capabilityId: 'Ghost.agent',
        suggestion:
          'Register and start an agent serving Ghost.agent, or drop Ghost.agent from policies.planner.selection.require.',
        details: {
          check: 'required_capability',
          path: 'policies.planner.selection.require',
          required: 'Ghost.agent',
        },
      }),
    ]);
  });

  it('fails the run with replan_limit past FLEX_MAX_REPLANS (the one bound, in run-model)', () => {
    const refused = replanLimitFailure(4, 3, 'the run');
    expect(refused).toEqual({
      code: 'replan_limit',
      reason: 'the run asked for replan 4; a run may replan at most 3 time(s) (FLEX_MAX_REPLANS)',
    });
    expect(replanLimitFailure(3, 3, 'the run')).toBeUndefined();
    const outcome = {
      kind: 'replan_limit' as const,
      code: 'replan_limit' as const,
      reason: refused?.reason ?? '',
    };
    expect(decidePlan(given(requested), 'req-1', outcome)).toEqual([
      { type: 'run_failed', payload: { code: 'replan_limit', reason: outcome.reason } },
    ]);
  });

  it('decides nothing for a request that is no longer pending', () => {
    const result = planRuleBased(request(envelope));
    expect(decidePlan(given(requested), 'req-0', planned(result))).toEqual([]);
    const drafted = {
      type: 'plan_drafted',
      payload: { attempt: 1, plan: planOf(result), planHash: planHash(planOf(result)), registry },
    };
    expect(decidePlan(given(requested, drafted), 'req-1', planned(result))).toEqual([]);
  });
});
