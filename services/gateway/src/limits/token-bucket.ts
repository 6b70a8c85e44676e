/** A token bucket: `tokens` left, as of `at` (ms). Pure: the caller brings the time. */
export interface Bucket {
  tokens: number;
  at: number;
}

export interface BucketRule {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Most tokens the bucket holds: the burst a quiet client may send at once. */
  burst: number;
}

/** A full bucket: a client that has sent nothing may send its whole burst. */
export const fullBucket = (rule: BucketRule, now: number): Bucket => ({ tokens: rule.burst, at: now });

/**
 * Take one token. Allowed: the bucket after taking it. Refused: the bucket as it stands (a refused
 * request costs nothing) and how long until a token is back, in whole seconds (Retry-After).
 */
export function take(
  bucket: Bucket,
  rule: BucketRule,
  now: number,
): { ok: true; bucket: Bucket } | { ok: false; bucket: Bucket; retryAfterSeconds: number } {
  // A clock that steps back refills nothing rather than draining the bucket.
  const elapsed = Math.max(0, now - bucket.at);
  const tokens = Math.min(rule.burst, bucket.tokens + (elapsed * rule.ratePerSecond) / 1000);
  if (tokens >= 1) return { ok: true, bucket: { tokens: tokens - 1, at: now } };
  const waitMs = ((1 - tokens) * 1000) / rule.ratePerSecond;
  return { ok: false, bucket: { tokens, at: now }, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
