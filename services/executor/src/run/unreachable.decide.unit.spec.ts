import fc from 'fast-check';
import { brief, expectValidPayloads, given, started } from '../test-support/run.fixtures';
import { DEFAULT_RETRY, type InvokeOutcome } from './invoke.decide';
import { decideAttempt, type UnreachableClock } from './unreachable.decide';
import { unreachableClock as clock, unreachableOutcome } from '../test-support/unreachable.fixtures';

const NODE = 'structuring-1';
const unreachable = unreachableOutcome();
const options = (over: Partial<UnreachableClock> = {}) => ({
  retry: DEFAULT_RETRY,
  unreachable: clock(over),
});

describe('decideAttempt: given a running attempt, when its agent could not be reached, then', () => {
  it('within the budget nothing is appended: the node_start comes back after a backoff', () => {
    const state = given([], started(NODE));
    expect(decideAttempt(state, NODE, 1, unreachable, options({ elapsedMs: 1_000 }))).toEqual({
      events: [],
      effects: [{ type: 'wake', inMs: 1_000 }],
    });
  });

  it('for any time within the budget and any outcome flagged unreachable, no failed attempt is recorded', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.constantFrom('NO_RESPONDERS', 'BUS_DISCONNECTED'),
        (budgetMs, at, jitter, code) => {
          const state = given([], started(NODE));
          const outcome = unreachableOutcome(code);
          const elapsedMs = Math.floor(at * budgetMs);
          const decided = decideAttempt(state, NODE, 1, outcome, options({ budgetMs, elapsedMs, jitter }));
          expect(decided.events).toEqual([]);
          expect(decided.effects).toHaveLength(1);
        },
      ),
    );
  });

  it('once the budget is spent the attempt fails as agent_unreachable, not retried: the node moves on down its chain', () => {
    const state = given([], started(NODE));
    const decided = decideAttempt(state, NODE, 1, unreachable, options({ elapsedMs: 30_000 }));
    expect(decided.effects).toEqual([]);
    expect(decided.events).toEqual([
      {
        type: 'node_error',
        payload: {
          nodeId: NODE,
          capabilityId: 'S.brief',
          attempt: 1,
          error: {
            code: 'agent_unreachable',
            message: 'unreachable for 30000 ms (budget 30000 ms): no responders on flex.agent.W',
            retryable: false,
          },
          willRetry: false,
          // The clock it gave up on: an outside fact, recorded so a replay decides this again.
          unreachable: { elapsedMs: 30_000, budgetMs: 30_000, deliveriesLeft: 8 },
        },
      },
    ]);
    expectValidPayloads(decided.events);
  });

  it('with no delivery of the node_start to spare, waiting ends early (a dead letter would fail the run)', () => {
    const state = given([], started(NODE));
    const decided = decideAttempt(state, NODE, 1, unreachable, options({ deliveriesLeft: 0 }));
    expect(
      decided.events.map((e) => [e.type, (e.payload as { error?: { code: string } }).error?.code]),
    ).toEqual([['node_error', 'agent_unreachable']]);
  });

  it('a budget of 0 keeps the old behaviour: unreachable fails the attempt at once', () => {
    const state = given([], started(NODE));
    const decided = decideAttempt(state, NODE, 1, unreachable, options({ budgetMs: 0 }));
    expect(decided.events.map((e) => e.type)).toEqual(['node_error']);
  });

  it('an attempt that is no longer the live one, or a run that ended, decides nothing and does not wait', () => {
    expect(decideAttempt(given([], started(NODE, 2)), NODE, 1, unreachable, options())).toEqual({
      events: [],
      effects: [],
    });
    const cancelled = {
      type: 'run_cancelled',
      payload: { cancelledBy: 'op', from: 'running', closedHitlRequests: [] },
    };
    const ended = given([], started(NODE), cancelled);
    expect(decideAttempt(ended, NODE, 1, unreachable, options())).toEqual({ events: [], effects: [] });
  });
});

describe('decideAttempt: an agent that answered (or failed) is decideInvocation’s', () => {
  it('an ordinary failure is a failed attempt with its retry, whatever the budget', () => {
    const state = given([], started(NODE));
    const failed: InvokeOutcome = {
      ok: false,
      durationMs: 5,
      error: { code: 'TIMEOUT', message: 'no reply within 2500ms', retryable: true },
    };
    const decided = decideAttempt(state, NODE, 1, failed, options());
    expect(decided.events).toEqual([
      expect.objectContaining({
        type: 'node_error',
        payload: expect.objectContaining({ error: failed.error, willRetry: true, retryInMs: 250 }),
      }),
    ]);
  });

  it('an answer is recorded', () => {
    const state = given([], started(NODE));
    const decided = decideAttempt(state, NODE, 1, { ok: true, output: brief, durationMs: 3 }, options());
    expect(decided.events.map((e) => e.type)).toEqual(['node_complete']);
  });
});
