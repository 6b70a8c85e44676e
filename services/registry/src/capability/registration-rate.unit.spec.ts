import fc from 'fast-check';
import { RegistrationLimiter } from './registration-rate';

describe('RegistrationLimiter', () => {
  it('admits a burst, then one registration per 60000 / perMinute ms, saying when the next comes', () => {
    const limiter = new RegistrationLimiter({ perMinute: 60, burst: 3 });
    expect([0, 0, 0].map((t) => limiter.take('a', t).ok)).toEqual([true, true, true]);
    expect(limiter.take('a', 0)).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(limiter.take('a', 400)).toEqual({ ok: false, retryAfterMs: 600 });
    expect(limiter.take('a', 1000)).toEqual({ ok: true });
    expect(limiter.take('a', 1000).ok).toBe(false);
  });

  it('keeps each identity to its own bucket', () => {
    const limiter = new RegistrationLimiter({ perMinute: 1, burst: 1 });
    expect(limiter.take('a', 0).ok).toBe(true);
    expect(limiter.take('a', 0).ok).toBe(false);
    expect(limiter.take('b', 0).ok).toBe(true);
  });

  it('refuses rates that could never admit anything', () => {
    expect(() => new RegistrationLimiter({ perMinute: 0, burst: 1 })).toThrow(RangeError);
    expect(() => new RegistrationLimiter({ perMinute: 10, burst: 0 })).toThrow(RangeError);
  });

  const rate = fc.record({
    perMinute: fc.integer({ min: 1, max: 6000 }),
    burst: fc.integer({ min: 1, max: 50 }),
  });
  /** Non-decreasing request times (ms), some at the same instant. */
  const times = fc
    .array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 300 })
    .map((gaps) => gaps.reduce<number[]>((acc, g) => [...acc, (acc[acc.length - 1] ?? 0) + g], []));

  it('never admits more than burst + perMinute × minutes in any window (property)', () => {
    fc.assert(
      fc.property(rate, times, ({ perMinute, burst }, at) => {
        const limiter = new RegistrationLimiter({ perMinute, burst });
        const admitted = at.filter((t) => limiter.take('id', t).ok);
        for (let i = 0; i < admitted.length; i++)
          for (let j = i; j < admitted.length; j++) {
            const windowMs = admitted[j] - admitted[i];
            expect(j - i + 1).toBeLessThanOrEqual(burst + (windowMs * perMinute) / 60_000 + 1e-6);
          }
      }),
    );
  });

  it('a refused registration is admitted once its retryAfterMs has passed (property)', () => {
    fc.assert(
      fc.property(rate, times, ({ perMinute, burst }, at) => {
        const limiter = new RegistrationLimiter({ perMinute, burst });
        for (const t of at) {
          const answer = limiter.take('id', t);
          if (!answer.ok) {
            expect(answer.retryAfterMs).toBeGreaterThan(0);
            expect(limiter.take('id', t + answer.retryAfterMs)).toEqual({ ok: true });
            return;
          }
        }
      }),
    );
  });
});
