import type { PlanGraph, RuntimePolicy } from '@flex/contracts';
import { givenEvents } from '@flex/testing';
import { decideAction, decideDeferredReplan } from './policy/action.decide';
import { decideHitlFollowUps } from './policy/hitl.decide';
import { decideHitlResolve, decideManualTrigger } from './policy/run-control.decide';
import { evolveRun } from './run.evolve';
import { initialRunState, pendingHitlRequests, type RunState, type StartedRun } from './run.state';

const plan: PlanGraph = {
  planVersion: 1,
  nodes: [
    {
      id: 'write',
      kind: 'execution',
      label: 'Write',
      capabilityId: 'W.write',
      inputFacets: [],
      outputFacets: ['copyVariants'],
    },
  ],
  edges: [],
  metadata: { plannerId: 't', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) },
};
const rethink: RuntimePolicy = { id: 'rethink', trigger: { kind: 'manual' }, action: { type: 'replan' } };
const envelope = {
  objective: 'o',
  inputs: {},
  outputContract: { schema: { type: 'object' } },
  policies: { runtime: [rethink] },
};
const diagnostics = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };

type Given = { type: string; payload: unknown };
const start: Given = {
  type: 'start',
  payload: { runId: 'r1', envelope, normalization: [], owner: { principal: 'p', role: 'client' } },
};
const requested = (attempt: number, reason = 'initial'): Given => ({
  type: 'plan_requested',
  payload: { attempt, reason, policyKeys: [] },
});
const generated: Given = {
  type: 'plan_generated',
  payload: { planVersion: 1, plan, nodes: [], diagnostics, planHash: 'h', metadata: plan.metadata },
};
const updated: Given = {
  type: 'plan_updated',
  payload: {
    previousVersion: 1,
    version: 2,
    plan: { ...plan, planVersion: 2 },
    nodes: [],
    trigger: {},
    planHash: 'h',
    diagnostics,
  },
};
const ask = (requestId: string, action?: unknown): Given => ({
  type: 'hitl_request',
  payload: { requestId, policyId: 'p', rationale: 'r', mode: 'approval', ...(action ? { action } : {}) },
});
const decide = (requestId: string, decision: 'approve' | 'reject'): Given => ({
  type: 'hitl_resolved',
  payload: { requestId, decision, operator: 'op' },
});
const paused: Given = { type: 'run_paused', payload: { reason: 'hold', snapshot: {} } };
const resumed: Given = { type: 'run_resumed', payload: { expectedPlanVersion: 1, resumedBy: 'op' } };
const limits = { maxReplans: 2, maxHitlRequests: 5 };
const now = new Date('2026-01-01T00:10:00.000Z');

/** Given these events after the first plan (ids `run-r1-e<n>`), the folded state. */
const fold = (...more: Given[]): RunState =>
  givenEvents('run-r1', [start, requested(1), generated, ...more]).reduce(evolveRun, initialRunState());
const eventId = (n: number) => `run-r1-e${n + 3}`;
const started = (state: RunState): StartedRun => {
  if (state.status === 'none') throw new Error('no run');
  return state;
};

describe('run lifecycle: given events, the state; when asked, the decision (docs/lifecycle.md)', () => {
  it('a pause keeps the pending request; the resume returns to waiting for it, not to a stale status', () => {
    expect(fold(ask('hitl-1'), paused)).toMatchObject({
      status: 'paused',
      pause: { reason: 'hold' },
      hitl: { 'hitl-1': { status: 'pending' } },
    });
    expect(fold(ask('hitl-1'), paused, resumed)).toMatchObject({
      status: 'awaiting_hitl',
      waitingOn: ['hitl-1'],
    });
  });

  it('a decision while paused is recorded, and takes effect on the resume (effectiveAt is the run_resumed)', () => {
    const decided = fold(ask('hitl-1'), paused, decide('hitl-1', 'reject'));
    expect(decided).toMatchObject({
      status: 'paused',
      hitl: { 'hitl-1': { status: 'decided', decision: 'reject' } },
    });
    expect(decideHitlFollowUps(decided, eventId(3), limits, now)).toEqual([]);
    const back = fold(ask('hitl-1'), paused, decide('hitl-1', 'reject'), resumed);
    expect(back).toMatchObject({
      status: 'running',
      hitl: { 'hitl-1': { status: 'resolved', effectiveAt: eventId(4) } },
    });
    expect(decideHitlFollowUps(back, eventId(4), limits, now)).toEqual([
      {
        type: 'run_failed',
        payload: { code: 'hitl_rejected', reason: 'an operator rejected HITL request hitl-1' },
      },
    ]);
  });

  it('a request raised while paused holds the resumed run', () => {
    expect(fold(paused, ask('hitl-1'), resumed)).toMatchObject({
      status: 'awaiting_hitl',
      waitingOn: ['hitl-1'],
    });
  });

  it('a new plan version leaves a paused run paused and a waiting run waiting', () => {
    expect(fold(paused, requested(2, 'replan'), updated)).toMatchObject({ status: 'paused', planVersion: 2 });
    expect(fold(ask('hitl-1'), updated)).toMatchObject({ status: 'awaiting_hitl', planVersion: 2 });
  });

  it('a replan while a request is pending waits (replan_deferred); the decision that leaves none pending lets it go', () => {
    const waiting = started(fold(ask('hitl-1')));
    const ctx = { policyId: 'rethink', trigger: { kind: 'manual' } };
    const deferred = decideAction(waiting, { type: 'replan' }, ctx, limits);
    expect(deferred).toEqual([
      {
        type: 'replan_deferred',
        payload: {
          trigger: { kind: 'manual', policyId: 'rethink' },
          waitingFor: ['hitl-1'],
          policyId: 'rethink',
        },
      },
    ]);
    const held = fold(ask('hitl-1'), ...deferred);
    expect(held).toMatchObject({ status: 'awaiting_hitl', deferredReplan: { waitingFor: ['hitl-1'] } });
    expect(decideDeferredReplan(held, limits)).toEqual([]);
    expect(decideAction(started(held), { type: 'replan' }, ctx, limits)).toEqual([]);
    const decided = fold(ask('hitl-1'), ...deferred, decide('hitl-1', 'approve'));
    const replan = decideDeferredReplan(decided, limits);
    expect(replan).toMatchObject([
      {
        type: 'plan_requested',
        payload: { reason: 'replan', replan: { trigger: { kind: 'manual', policyId: 'rethink' } } },
      },
    ]);
    expect(fold(ask('hitl-1'), ...deferred, decide('hitl-1', 'approve'), ...replan)).not.toHaveProperty(
      'deferredReplan',
      expect.anything(),
    );
  });

  it('a replan of a paused run is asked at once, and a second one joins it', () => {
    const state = started(fold(paused));
    const first = decideAction(state, { type: 'replan' }, { trigger: { kind: 'manual' } }, limits);
    expect(first).toMatchObject([{ type: 'plan_requested', payload: { reason: 'replan' } }]);
    expect(
      decideAction(
        started(fold(paused, ...first)),
        { type: 'replan' },
        { trigger: { kind: 'manual' } },
        limits,
      ),
    ).toEqual([]);
  });

  it('an approval whose follow-up is a replan, with another request still pending: the replan waits for that one', () => {
    const gate = ask('hitl-1', { type: 'hitl', approveAction: { type: 'replan' } });
    const state = fold(gate, ask('hitl-2'), decide('hitl-1', 'approve'));
    expect(decideHitlFollowUps(state, eventId(3), limits, now)).toMatchObject([
      { type: 'replan_deferred', payload: { waitingFor: ['hitl-2'] } },
    ]);
  });

  it('a run that fails or is cancelled closes its open requests (pending, decided); a resolved one stays', () => {
    const failed: Given = { type: 'run_failed', payload: { code: 'agent_failed', reason: 'gave up' } };
    const cancelled: Given = {
      type: 'run_cancelled',
      payload: { cancelledBy: 'op', from: 'paused', closedHitlRequests: ['hitl-3'] },
    };
    const before = [ask('hitl-1'), decide('hitl-1', 'approve'), ask('hitl-2'), paused, ask('hitl-3')];
    for (const end of [failed, cancelled]) {
      const ended = started(fold(...before, decide('hitl-2', 'reject'), end));
      expect(ended.hitl).toEqual({
        'hitl-1': expect.objectContaining({ status: 'resolved', decision: 'approve' }),
        'hitl-2': expect.objectContaining({ requestId: 'hitl-2', status: 'closed' }),
        'hitl-3': expect.objectContaining({ requestId: 'hitl-3', status: 'closed' }),
      });
      expect(ended.hitl['hitl-2']).not.toHaveProperty('decision');
      expect(pendingHitlRequests(ended)).toEqual([]);
    }
    const planning = givenEvents('run-r1', [start, requested(1), ask('hitl-1'), failed]);
    expect(started(planning.reduce(evolveRun, initialRunState())).hitl['hitl-1'].status).toBe('closed');
  });

  it('an operator answering a request closed with its run is told the run has ended', () => {
    const failed: Given = { type: 'run_failed', payload: { code: 'agent_failed', reason: 'gave up' } };
    const request = { runId: 'r1', requestId: 'hitl-1', decision: 'approve' as const };
    expect(decideHitlResolve(fold(ask('hitl-1'), failed), request, 'op')).toMatchObject({
      effects: [{ type: 'refuse', code: 'invalid_run_state' }],
    });
  });

  it('policies act on a plan: a manual trigger while planning is refused', () => {
    const planning = givenEvents('run-r1', [start, requested(1)]).reduce(evolveRun, initialRunState());
    expect(decideManualTrigger(planning, 'r1', 'rethink', now, limits)).toMatchObject({
      effects: [{ type: 'refuse', code: 'invalid_run_state' }],
    });
  });
});
