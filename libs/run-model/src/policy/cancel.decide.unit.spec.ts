import { parseEventPayload, type PlanGraph } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { evolveRun } from '../run.evolve';
import { initialRunState, isTerminal, type RunState } from '../run.state';
import { decideHitlResolve, decideResume } from './run-control.decide';
import { decideCancel } from './cancel.decide';

/** Events as the store would hold them on `streamId` (ids `<streamId>-e<n>` unless given). */
function givenEvents(
  streamId: string,
  events: Array<{ type: string; payload: unknown; id?: string }>,
): StoredEvent[] {
  return events.map((e, i) => ({
    position: i + 1,
    id: e.id ?? `${streamId}-e${i + 1}`,
    streamId,
    version: i + 1,
    type: e.type,
    payload: e.payload,
    metadata: { correlationId: 'corr-1' },
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  }));
}

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
const envelope = { objective: 'o', inputs: {}, outputContract: { schema: { type: 'object' } } };
const start = {
  type: 'start',
  payload: { runId: 'r1', envelope, normalization: [], owner: { principal: 'p', role: 'client' } },
};
const requested = { type: 'plan_requested', payload: { attempt: 1, reason: 'initial', policyKeys: [] } };
const diagnostics = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
const generated = {
  type: 'plan_generated',
  payload: { planVersion: 1, plan, nodes: [], diagnostics, planHash: 'h', metadata: plan.metadata },
};
const approval = {
  type: 'hitl_request',
  payload: { requestId: 'hitl-1', policyId: 'p', rationale: 'r', mode: 'approval' },
};
const paused = { type: 'run_paused', payload: { reason: 'x', snapshot: {} } };
const cancelled = {
  type: 'run_cancelled',
  payload: { cancelledBy: 'op', from: 'running', closedHitlRequests: [] },
};

type Given = { type: string; payload: unknown };
const fold = (...events: Given[]): RunState =>
  givenEvents('run-r1', events).reduce(evolveRun, initialRunState());
const cancel = (state: RunState, reason?: string) => decideCancel(state, { runId: 'r1', by: 'op', reason });

describe('decideCancel: given the run, when cancelled, then', () => {
  it.each<[string, Given[], string]>([
    ['planning', [start, requested], 'planning'],
    ['running', [start, requested, generated], 'running'],
    ['paused', [start, requested, generated, paused], 'paused'],
  ])('a %s run: run_cancelled, and the run has ended', (_name, history, from) => {
    const decision = cancel(fold(...history), 'not needed');
    expect(decision).toEqual({
      effects: [],
      events: [
        {
          type: 'run_cancelled',
          payload: { cancelledBy: 'op', reason: 'not needed', from, closedHitlRequests: [] },
        },
      ],
    });
    expect(parseEventPayload('run_cancelled', decision.events[0].payload).ok).toBe(true);
    const after = fold(...history, ...decision.events);
    expect(after).toMatchObject({ status: 'cancelled', cancellation: { by: 'op', reason: 'not needed' } });
    expect(isTerminal(after)).toBe(true);
  });

  it('a run waiting for a human (even paused): the pending request is closed with it, a later resolve is 409', () => {
    const waiting = fold(start, requested, generated, approval, paused);
    const decision = cancel(waiting);
    expect(decision).toMatchObject({
      effects: [],
      events: [{ payload: { from: 'paused', closedHitlRequests: ['hitl-1'] } }],
    });
    expect(decision.events[0].payload).not.toHaveProperty('reason');
    const after = fold(start, requested, generated, approval, paused, ...decision.events);
    const resolve = decideHitlResolve(after, { runId: 'r1', requestId: 'hitl-1', decision: 'approve' }, 'op');
    expect(resolve).toMatchObject({ effects: [{ type: 'refuse', code: 'invalid_run_state' }] });
    expect(decideResume(after, 'r1', 1, 'op')).toMatchObject({ effects: [{ type: 'refuse' }] });
  });

  it('a cancelled run: nothing more (idempotent)', () => {
    expect(cancel(fold(start, requested, generated, cancelled))).toEqual({ events: [], effects: [] });
  });

  it.each<[string, Given]>([
    ['completed', { type: 'complete', payload: { output: {}, planVersion: 1 } }],
    ['failed', { type: 'run_failed', payload: { code: 'x', reason: 'y' } }],
  ])('a %s run: refused as already ended', (status, end) => {
    const decision = cancel(fold(start, requested, generated, end));
    expect(decision).toEqual({
      events: [],
      effects: [
        { type: 'refuse', code: 'run_already_ended', message: expect.stringContaining(`(${status})`) },
      ],
    });
  });

  it('no run: not found', () => {
    expect(cancel(initialRunState())).toEqual({
      events: [],
      effects: [{ type: 'refuse', code: 'run_not_found', message: 'no run r1' }],
    });
  });
});
