/** A token's refusals (429s) in the current second: since when (ms), and how many. */
export interface RefusalWindow {
  start: number;
  count: number;
}

export const NO_REFUSALS: RefusalWindow = { start: Number.NEGATIVE_INFINITY, count: 0 };

/** The longest Retry-After a spread gives: a client sending more than that is not waiting for it anyway. */
export const MAX_SPREAD_SECONDS = 60;

/**
 * One more refusal of the token, and its Retry-After: at least `baseSeconds`, and spread so that the
 * refusals of one second, each sent again when its Retry-After says, come back at no more than
 * `ratePerSecond` a second (the n-th refusal of a second waits ceil(n / ratePerSecond) s). A client
 * that sends hundreds of requests at once and honours Retry-After then costs the server about its
 * request rate, instead of hundreds of refusals a second all coming back at the same moment.
 */
export function spreadRefusal(
  window: RefusalWindow,
  now: number,
  ratePerSecond: number,
  baseSeconds: number,
): { window: RefusalWindow; retryAfterSeconds: number } {
  // A clock that steps back starts a new second rather than extending an old one.
  const current = now >= window.start && now - window.start < 1000 ? window : { start: now, count: 0 };
  const count = current.count + 1;
  const spread = Math.ceil(count / ratePerSecond);
  return {
    window: { start: current.start, count },
    retryAfterSeconds: Math.min(MAX_SPREAD_SECONDS, Math.max(baseSeconds, spread)),
  };
}
