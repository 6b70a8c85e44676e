import fc from 'fast-check';
import { fullBucket, take, type BucketRule } from './token-bucket';

const ruleArb = fc.record({
  ratePerSecond: fc.integer({ min: 1, max: 1_000 }),
  burst: fc.integer({ min: 1, max: 500 }),
});

/** Requests at non-decreasing times (ms after the first). */
const timesArb = fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 300 }).map((gaps) => {
  let at = 0;
  return gaps.map((gap) => (at += gap));
});

describe('token bucket', () => {
  it('allows at most burst + rate × elapsed requests, and keeps the bucket between 0 and burst', () => {
    fc.assert(
      fc.property(ruleArb, timesArb, (rule, times) => {
        let bucket = fullBucket(rule, 0);
        const allowed: number[] = [];
        for (const now of times) {
          const taken = take(bucket, rule, now);
          bucket = taken.bucket;
          if (taken.ok) allowed.push(now);
          expect(bucket.tokens).toBeGreaterThanOrEqual(0);
          expect(bucket.tokens).toBeLessThanOrEqual(rule.burst);
        }
        const elapsed = (times.at(-1) ?? 0) - (times[0] ?? 0);
        expect(allowed.length).toBeLessThanOrEqual(rule.burst + (elapsed * rule.ratePerSecond) / 1000 + 1e-6);
      }),
    );
  });

  it('never refuses a client that keeps to the rate', () => {
    fc.assert(
      fc.property(ruleArb, timesArb, (rule, gaps) => {
        const interval = 1000 / rule.ratePerSecond;
        let bucket = fullBucket(rule, 0);
        let now = 0;
        for (const extra of gaps) {
          now += interval + extra;
          const taken = take(bucket, rule, now);
          expect(taken.ok).toBe(true);
          bucket = taken.bucket;
        }
      }),
    );
  });

  it('lets a full burst through at once, then refuses with a Retry-After after which a token is back', () => {
    fc.assert(
      fc.property(ruleArb, fc.integer({ min: 0, max: 1e9 }), (rule: BucketRule, start) => {
        let bucket = fullBucket(rule, start);
        for (let i = 0; i < rule.burst; i += 1) {
          const taken = take(bucket, rule, start);
          expect(taken.ok).toBe(true);
          bucket = taken.bucket;
        }
        const refused = take(bucket, rule, start);
        if (refused.ok) throw new Error('the request past the burst was allowed');
        expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(take(refused.bucket, rule, start + refused.retryAfterSeconds * 1000).ok).toBe(true);
      }),
    );
  });

  it('refills nothing when the clock steps back', () => {
    const rule = { ratePerSecond: 10, burst: 1 };
    const first = take(fullBucket(rule, 1_000), rule, 1_000);
    expect(take(first.bucket, rule, 0).ok).toBe(false);
  });
});
