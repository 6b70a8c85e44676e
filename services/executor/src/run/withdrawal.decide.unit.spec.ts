import type { CapabilityView } from '@flex/runtime';
import { expectValidPayloads, fold, type Given } from '../test-support/run.fixtures';
import {
  unreachableClock as clock,
  unreachableOutcome,
  writerRunning,
} from '../test-support/unreachable.fixtures';
import { DEFAULT_RETRY, type InvokeOutcome } from './invoke.decide';
import { decideOnEvent } from './run.decide';
import { decideAttempt } from './unreachable.decide';
import { decideWithdrawal, standInOf } from './withdrawal.decide';

const limits = { maxReplans: 2, maxHitlRequests: 5 };
const now = new Date('2026-01-01T00:01:00.000Z');
const raisedAt = '2026-01-01T00:00:30.000Z';
const view = (over: Partial<CapabilityView> = {}): CapabilityView => ({
  registration: {} as CapabilityView['registration'],
  status: 'active',
  activeInstances: 1,
  registeredAt: '2026-01-01T00:00:00.000Z',
  lastSeenAt: '2026-01-01T00:00:45.000Z',
  ...over,
});

/** The writer's attempt ended as `outcome` after its budget, and the run went on down the writer's chain. */
function afterWriterFailed(outcome: InvokeOutcome): Given[] {
  const history = writerRunning();
  const failed = decideAttempt(fold(history), 'execution-1', 1, outcome, {
    retry: { ...DEFAULT_RETRY, maxAttempts: 1 },
    unreachable: clock({ elapsedMs: 30_000 }),
  }).events;
  const chain = decideOnEvent(fold([...history, ...failed]), [], now, { limits, fallbacks: [] }).events;
  return [...history, ...failed, ...chain];
}

describe('decideWithdrawal: given the human fallback asked because the writer was unreachable, then', () => {
  const history = afterWriterFailed(unreachableOutcome());

  it('the request stands in for the writer: the node failed with agent_unreachable and waits for an operator', () => {
    expect(history.map((e) => e.type).slice(-2)).toEqual(['node_error', 'hitl_request']);
    expect(standInOf(fold(history), 'hitl-1')).toEqual({ nodeId: 'execution-1', capabilityId: 'W.write' });
  });

  it('once the registry has seen the writer since the request, the request is withdrawn and the writer runs again', () => {
    const decided = decideWithdrawal(fold(history), { requestId: 'hitl-1', raisedAt }, view(), clock());
    expect(decided.effects).toEqual([]);
    expect(decided.events.map((e) => e.type)).toEqual(['hitl_withdrawn', 'node_start']);
    expect(decided.events[1].payload).toMatchObject({
      nodeId: 'execution-1',
      capabilityId: 'W.write',
      attempt: 2,
    });
    expectValidPayloads(decided.events);
    const after = fold([...history, ...decided.events]);
    expect(after.status).toBe('running');
    expect(after.status !== 'none' && after.hitl['hitl-1'].status).toBe('closed');
    expect(after.status !== 'none' && after.nodes['execution-1']).toMatchObject({
      status: 'running',
      attempt: 2,
    });
  });

  it.each([
    ['not seen since the request', view({ lastSeenAt: '2026-01-01T00:00:10.000Z' })],
    ['inactive', view({ status: 'inactive' })],
    ['with no live instance', view({ activeInstances: 0 })],
    ['unknown to the registry (or the registry did not answer)', undefined],
  ])('a writer %s: nothing is appended, the registry is looked at again later', (_name, seen) => {
    const decided = decideWithdrawal(fold(history), { requestId: 'hitl-1', raisedAt }, seen, clock());
    expect(decided).toEqual({ events: [], effects: [{ type: 'wake', inMs: 2_000 }] });
  });

  it('after the watch window (or with no delivery to spare) the request is the operator’s alone', () => {
    const state = fold(history);
    const request = { requestId: 'hitl-1', raisedAt };
    expect(decideWithdrawal(state, request, undefined, clock({ elapsedMs: 300_000 }))).toEqual({
      events: [],
      effects: [],
    });
    expect(decideWithdrawal(state, request, undefined, clock({ deliveriesLeft: 0 }))).toEqual({
      events: [],
      effects: [],
    });
  });

  it('a paused run stays paused: the writer being back is acted on after the resume', () => {
    const paused = [...history, { type: 'run_paused', payload: { reason: 'op', pausedBy: 'op' } }];
    const decided = decideWithdrawal(fold(paused), { requestId: 'hitl-1', raisedAt }, view(), clock());
    expect(decided.events).toEqual([]);
    expect(decided.effects).toEqual([{ type: 'wake', inMs: 2_000 }]);
  });

  it('while another request is pending nothing starts: the writer being back is acted on later', () => {
    const asked = { requestId: 'hitl-2', policyId: 'p', rationale: 'look', mode: 'approval' };
    const decided = decideWithdrawal(
      fold([...history, { type: 'hitl_request', payload: asked }]),
      { requestId: 'hitl-1', raisedAt },
      view(),
      clock(),
    );
    expect(decided).toEqual({ events: [], effects: [{ type: 'wake', inMs: 2_000 }] });
  });

  it('a request an operator already answered is not withdrawn', () => {
    const answered = [
      ...history,
      {
        type: 'hitl_resolved',
        payload: { requestId: 'hitl-1', decision: 'reject', operator: 'op' },
      },
    ];
    expect(standInOf(fold(answered), 'hitl-1')).toBeUndefined();
    expect(decideWithdrawal(fold(answered), { requestId: 'hitl-1', raisedAt }, view(), clock())).toEqual({
      events: [],
      effects: [],
    });
  });
});

describe('decideWithdrawal: a human request for any other reason is the operator’s', () => {
  it('a writer that failed (its answer timed out) is no stand-in: the request is never withdrawn', () => {
    const history = afterWriterFailed(unreachableOutcome('TIMEOUT'));
    expect(history.map((e) => e.type).slice(-1)).toEqual(['hitl_request']);
    expect(standInOf(fold(history), 'hitl-1')).toBeUndefined();
    expect(decideWithdrawal(fold(history), { requestId: 'hitl-1', raisedAt }, view(), clock())).toEqual({
      events: [],
      effects: [],
    });
  });
});
