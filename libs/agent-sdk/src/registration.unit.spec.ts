import { backoffDelay } from './registration';

describe('backoffDelay', () => {
  const retry = { initialDelayMs: 100, maxDelayMs: 2_000 };

  it('doubles per attempt up to the cap', () => {
    const top = (attempt: number) => backoffDelay(attempt, retry, () => 1);
    expect([1, 2, 3, 4, 5, 6, 50].map(top)).toEqual([100, 200, 400, 800, 1_600, 2_000, 2_000]);
  });

  it('jitters within [half, full] of the capped delay', () => {
    expect(backoffDelay(3, retry, () => 0)).toBe(200);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelay(10, retry);
      expect(d).toBeGreaterThanOrEqual(1_000);
      expect(d).toBeLessThanOrEqual(2_000);
    }
  });
});
