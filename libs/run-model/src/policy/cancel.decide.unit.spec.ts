import { parseEventPayload } from '@flex/contracts';
import { initialRunState, isTerminal, type RunState } from '../run.state';
import {
  approval,
  cancelled,
  fold,
  generated,
  paused,
  requested,
  start,
  type Given,
} from '../test-support/given-run';
import { decideHitlResolve, decideResume } from './run-control.decide';
import { decideCancel } from './cancel.decide';

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
