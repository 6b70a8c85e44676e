import type { RuntimePolicy } from '@flex/contracts';
import { brief, given, started } from '../test-support/run.fixtures';
import { decideInvocation, DEFAULT_RETRY } from './invoke.decide';
import { decideOnEvent, decideTimers } from './run.decide';

const limits = { maxReplans: 2, maxHitlRequests: 5 };
const now = new Date('2026-01-01T00:01:00.000Z');
const cancelled = {
  type: 'run_cancelled',
  payload: { cancelledBy: 'op', from: 'running', closedHitlRequests: [] },
};
const deadline: RuntimePolicy = {
  id: 'deadline',
  trigger: { kind: 'onTimeout', ms: 120_000 },
  action: { type: 'fail', message: 'late' },
};

/** Cancel is terminal: whatever was in flight when it landed moves nothing. */
describe('executor: a cancelled run', () => {
  it('an agent result arriving after the cancel records nothing', () => {
    const state = given([], started('structuring-1'), cancelled);
    const ok = { ok: true as const, output: brief, durationMs: 5 };
    expect(decideInvocation(state, 'structuring-1', 1, ok, DEFAULT_RETRY)).toEqual([]);
    const failed = {
      ok: false as const,
      durationMs: 5,
      error: { code: 'agent_error', message: 'x', retryable: true },
    };
    expect(decideInvocation(state, 'structuring-1', 1, failed, DEFAULT_RETRY)).toEqual([]);
  });

  it('a timer (the run deadline, a retry redelivery) neither fires nor asks to wake again', () => {
    const state = given([deadline], started('structuring-1'), cancelled);
    expect(decideTimers(state, new Date('2026-01-02T00:00:00.000Z'), limits)).toEqual({
      events: [],
      effects: [],
    });
    expect(decideOnEvent(state, [{ kind: 'onStart' }], now, { limits })).toEqual({ events: [], effects: [] });
  });
});
