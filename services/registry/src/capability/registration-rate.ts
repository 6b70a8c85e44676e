/** How fast one identity may register: `burst` at once, then `perMinute` (tokens refill continuously). */
export interface RegistrationRate {
  perMinute: number;
  burst: number;
}

export type Admission = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Refill is computed in floating point: a token this close to whole is whole. */
const EPSILON = 1e-9;
/** Past this many identities, buckets that have refilled (the same as no bucket) are dropped. */
const PRUNE_ABOVE = 10_000;

/**
 * One token bucket per identity, in memory: each registration takes a token; a refused one is told
 * when the next token comes. Time is the caller's (`nowMs`), so the rule is deterministic. Each
 * registry replica keeps its own buckets: N replicas admit at most N times the rate.
 */
export class RegistrationLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(private readonly rate: RegistrationRate) {
    if (!(rate.perMinute > 0 && Number.isFinite(rate.perMinute)))
      throw new RangeError('perMinute must be positive');
    if (!(Number.isInteger(rate.burst) && rate.burst >= 1))
      throw new RangeError('burst must be a positive integer');
    this.perMs = rate.perMinute / 60_000;
  }

  take(identity: string, nowMs: number): Admission {
    const bucket = this.refilled(identity, nowMs);
    if (bucket.tokens >= 1 - EPSILON) {
      this.buckets.set(identity, { tokens: Math.max(0, bucket.tokens - 1), at: bucket.at });
      if (this.buckets.size > PRUNE_ABOVE) this.prune(nowMs);
      return { ok: true };
    }
    this.buckets.set(identity, bucket);
    return { ok: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / this.perMs) };
  }

  private refilled(identity: string, nowMs: number): Bucket {
    const bucket = this.buckets.get(identity);
    if (!bucket) return { tokens: this.rate.burst, at: nowMs };
    // A clock that steps back refills nothing, and takes nothing back either.
    const elapsed = Math.max(0, nowMs - bucket.at);
    return {
      tokens: Math.min(this.rate.burst, bucket.tokens + elapsed * this.perMs),
      at: Math.max(nowMs, bucket.at),
    };
  }

  private prune(nowMs: number): void {
    for (const [identity] of this.buckets)
      if (this.refilled(identity, nowMs).tokens >= this.rate.burst) this.buckets.delete(identity);
  }
}
