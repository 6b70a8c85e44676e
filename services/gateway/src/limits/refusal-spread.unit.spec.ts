import fc from 'fast-check';
import { MAX_SPREAD_SECONDS, NO_REFUSALS, spreadRefusal } from './refusal-spread';

/** Refusals at non-decreasing times (ms after the first). */
const timesArb = fc
  .array(fc.integer({ min: 0, max: 1_500 }), { minLength: 1, maxLength: 400 })
  .map((gaps) => {
    let at = 0;
    return gaps.map((gap) => (at += gap));
  });

describe('spreadRefusal', () => {
  it('tells at most `rate` refusals of one second to come back in any one later second', () => {
    const arb = fc.tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 5 }), timesArb);
    fc.assert(
      fc.property(arb, ([rate, base, times]) => {
        let window = NO_REFUSALS;
        // How many refusals of each second (window) were told each Retry-After.
        const told = new Map<string, number>();
        for (const now of times) {
          const spread = spreadRefusal(window, now, rate, base);
          window = spread.window;
          const seconds = spread.retryAfterSeconds;
          expect(seconds).toBeGreaterThanOrEqual(base);
          expect(seconds).toBeLessThanOrEqual(MAX_SPREAD_SECONDS);
          const key = `${window.start}:${seconds}`;
          told.set(key, (told.get(key) ?? 0) + 1);
        }
        for (const [key, count] of told) {
          const seconds = Number(key.split(':')[1]);
          if (seconds === MAX_SPREAD_SECONDS) continue;
          // The base is a floor: the refusals that would have waited less wait it too.
          expect(count).toBeLessThanOrEqual(seconds === base ? base * rate : rate);
        }
      }),
    );
  });

  it('spreads 300 refusals at once over the seconds the rate needs, the first ones waiting the base', () => {
    let window = NO_REFUSALS;
    const told: number[] = [];
    for (let i = 0; i < 300; i++) {
      const spread = spreadRefusal(window, 5_000, 50, 2);
      window = spread.window;
      told.push(spread.retryAfterSeconds);
    }
    const perSecond = told.reduce<Record<number, number>>(
      (acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }),
      {},
    );
    expect(perSecond).toEqual({ 2: 100, 3: 50, 4: 50, 5: 50, 6: 50 });
  });

  it('starts a new second once a second has passed, or when the clock steps back', () => {
    const first = spreadRefusal(NO_REFUSALS, 1_000, 1, 1);
    expect(spreadRefusal(first.window, 1_999, 1, 1).retryAfterSeconds).toBe(2);
    expect(spreadRefusal(first.window, 2_000, 1, 1).retryAfterSeconds).toBe(1);
    expect(spreadRefusal(first.window, 500, 1, 1).retryAfterSeconds).toBe(1);
  });

  it('never tells a client to wait longer than MAX_SPREAD_SECONDS', () => {
    let window = NO_REFUSALS;
    let last = 0;
    for (let i = 0; i < 1_000; i++) ({ window, retryAfterSeconds: last } = spreadRefusal(window, 0, 1, 1));
    expect(last).toBe(MAX_SPREAD_SECONDS);
  });
});
