import { parseEventPayload } from '@flex/contracts';
import { initialRunState, pendingHitlRequests, type RunState } from '../run.state';
import { approval, fold, generated, requested, start, type Given } from '../test-support/given-run';
import { decidePause } from './pause.decide';
import { decideResume } from './run-control.decide';

const policyPause: Given = { type: 'run_paused', payload: { reason: 'x', policyId: 'p', snapshot: {} } };

const pause = (state: RunState, reason?: string) => decidePause(state, { runId: 'r1', by: 'op', reason });
const refusal = (code: string, message: string) => ({
  events: [],
  effects: [{ type: 'refuse', code, message: expect.stringContaining(message) }],
});

describe('decidePause: given the run, when an operator pauses it, then', () => {
  it('a running run: run_paused with the reason, the operator and a snapshot; resumable on its plan version', () => {
    const history = [start, requested, generated];
    const decision = pause(fold(...history), 'look at the draft');
    expect(decision).toEqual({
      effects: [],
      events: [
        {
          type: 'run_paused',
          payload: {
            reason: 'look at the draft',
            pausedBy: 'op',
            snapshot: expect.objectContaining({ planVersion: 1, status: 'running' }),
          },
        },
      ],
    });
    expect(parseEventPayload('run_paused', decision.events[0].payload).ok).toBe(true);
    const after = fold(...history, ...decision.events);
    expect(after).toMatchObject({ status: 'paused', pause: { reason: 'look at the draft' } });
    expect(decideResume(after, 'r1', 1, 'op').events.map((e) => e.type)).toEqual(['run_resumed']);
  });

  it('a run waiting for a human: paused, its request still pending; without a reason, a default one', () => {
    const history = [start, requested, generated, approval];
    const decision = pause(fold(...history));
    expect(decision.events).toEqual([
      {
        type: 'run_paused',
        payload: expect.objectContaining({ reason: 'paused by an operator', pausedBy: 'op' }),
      },
    ]);
    const after = fold(...history, ...decision.events);
    expect(after.status).toBe('paused');
    expect(pendingHitlRequests(after)).toEqual(['hitl-1']);
  });

  it.each<[string, Given[], string]>([
    ['still planning', [start, requested], 'still planning'],
    ['already paused', [start, requested, generated, policyPause], 'already paused (x)'],
    [
      'completed',
      [start, requested, generated, { type: 'complete', payload: { output: {}, planVersion: 1 } }],
      '(completed)',
    ],
    [
      'failed',
      [start, requested, generated, { type: 'run_failed', payload: { code: 'x', reason: 'y' } }],
      '(failed)',
    ],
    [
      'cancelled',
      [
        start,
        requested,
        generated,
        { type: 'run_cancelled', payload: { cancelledBy: 'op', from: 'running', closedHitlRequests: [] } },
      ],
      '(cancelled)',
    ],
  ])('a run %s: refused (invalid_run_state), nothing appended', (_name, history, message) => {
    expect(pause(fold(...history), 'why')).toEqual(refusal('invalid_run_state', message));
  });

  it('no run: not found', () => {
    expect(pause(initialRunState())).toEqual(refusal('run_not_found', 'no run r1'));
  });
});
