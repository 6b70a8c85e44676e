import fc from 'fast-check';
import {
  BusDisconnectedError,
  MessagingError,
  NoRespondersError,
  RemoteError,
  RequestTimeoutError,
} from './errors';
import { FIRST_UNREACHABLE_WAIT_MS as FIRST, isUnreachable, nextUnreachableWait } from './unreachable';

/** The times a caller asks, from 0 until the waits run out, with the given jitter draws. */
function schedule(budgetMs: number, jitters: readonly number[]): number[] {
  const tries = [0];
  for (let i = 0; ; i++) {
    const at = tries[tries.length - 1];
    const wait = nextUnreachableWait({ elapsedMs: at, budgetMs, jitter: jitters[i % jitters.length] });
    if (wait === undefined) return tries;
    tries.push(at + wait);
  }
}

const budgets = fc.integer({ min: 1, max: 10 * 60_000 });
const jitters = fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 1 });

describe('isUnreachable: which errors say nobody could answer', () => {
  it('no responders, and the connection down while asking; nothing else', () => {
    expect(isUnreachable(new NoRespondersError('s'))).toBe(true);
    expect(isUnreachable(new BusDisconnectedError('s'))).toBe(true);
    expect(isUnreachable({ code: 'NO_RESPONDERS' })).toBe(true);
    expect(isUnreachable(new RequestTimeoutError('s', 10))).toBe(false);
    expect(
      isUnreachable(new RemoteError('s', { code: 'invalid_input', message: 'm', retryable: false })),
    ).toBe(false);
    expect(isUnreachable(new MessagingError('REQUEST_FAILED', 'm', true, 's'))).toBe(false);
    for (const other of [undefined, null, 'NO_RESPONDERS', new Error('no responders'), { code: 42 }])
      expect(isUnreachable(other)).toBe(false);
  });
});

describe('nextUnreachableWait: backoff within a budget', () => {
  it('waits between 1 ms and what is left of the budget; nothing once it is spent or no try is left', () => {
    fc.assert(
      fc.property(
        budgets,
        fc.integer({ min: 0, max: 20 * 60_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: -2, max: 20 }), { nil: undefined }),
        (budgetMs, elapsedMs, jitter, triesLeft) => {
          const wait = nextUnreachableWait({ elapsedMs, budgetMs, jitter, triesLeft });
          if (elapsedMs >= budgetMs || (triesLeft !== undefined && triesLeft < 1))
            return expect(wait).toBeUndefined();
          expect(wait).toBeGreaterThanOrEqual(Math.min(1, budgetMs - elapsedMs));
          expect(wait).toBeLessThanOrEqual(budgetMs - elapsedMs);
          expect(wait).toBeGreaterThanOrEqual(Math.min(Math.max(elapsedMs, FIRST), budgetMs - elapsedMs));
        },
      ),
    );
  });

  it('asks few times, the last at the end of the budget, and finds a peer back after t by 2.5 × max(t, first wait)', () => {
    fc.assert(
      fc.property(budgets, jitters, fc.double({ min: 0, max: 1, noNaN: true }), (budgetMs, draws, at) => {
        const tries = schedule(budgetMs, draws);
        expect(tries[tries.length - 1]).toBe(budgetMs);
        expect(tries.length - 1).toBeLessThanOrEqual(Math.max(1, Math.ceil(Math.log2(budgetMs / FIRST)) + 2));
        const back = at * budgetMs;
        const found = tries.find((t) => t >= back);
        expect(found).toBeDefined();
        expect(found).toBeLessThanOrEqual(Math.max(2.5 * Math.max(back, FIRST), 1));
      }),
    );
  });

  it('a budget of 0 never waits: unreachable is a failure at once', () => {
    expect(nextUnreachableWait({ elapsedMs: 0, budgetMs: 0, jitter: 0.5 })).toBeUndefined();
  });

  it('the first waits with the default budget: 0.5-0.75 s, then doubling (a 1.5 s agent restart costs ~2-3 s)', () => {
    expect(schedule(30_000, [0])).toEqual([0, 500, 1000, 2000, 4000, 8000, 16000, 30000]);
    expect(schedule(30_000, [0.999]).slice(0, 3)).toEqual([0, 750, 1875]);
  });
});
