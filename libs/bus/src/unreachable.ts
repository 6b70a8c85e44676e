/**
 * "Transient is not failure" (docs/lifecycle.md): a peer that nobody could reach (no responders on
 * its subject, or our own connection to NATS down while we asked) has not failed; it is asked again
 * with backoff until a time budget is spent, and only then is that a failure.
 */

/** Codes of an error that says the peer could not be reached, not that it failed. */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['NO_RESPONDERS', 'BUS_DISCONNECTED']);

/** True when `error` (by its `code`) means nobody could answer: ask again later, it is no failure. */
export function isUnreachable(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && UNREACHABLE_CODES.has(code);
}

/** The first wait after an unreachable peer; each later wait is about as long as the time waited so far. */
export const FIRST_UNREACHABLE_WAIT_MS = 500;

export interface UnreachableWaitInput {
  /** Since the first time the peer was asked. */
  elapsedMs: number;
  /** How long the peer may stay unreachable before that is a failure (0: not at all). */
  budgetMs: number;
  /** A draw in [0, 1): spreads the askers that lost the same peer, so they do not come back at once. */
  jitter: number;
  /** How many more times the caller can ask (e.g. deliveries left before a dead letter); unbounded if unset. */
  triesLeft?: number;
  /** The first wait (default {@link FIRST_UNREACHABLE_WAIT_MS}). */
  firstWaitMs?: number;
}

/**
 * How long to wait before asking an unreachable peer again, or `undefined` once the budget is spent.
 * The waits double (from {@link FIRST_UNREACHABLE_WAIT_MS}, times 1 to 1.5 for jitter), so the
 * tries within a budget are few (at most log2(budget / first wait) + 2), and the last one falls on
 * the budget's end: a peer back after `t` ms is found by 2.5 × max(t, first wait), within the budget.
 */
export function nextUnreachableWait(input: UnreachableWaitInput): number | undefined {
  const left = input.budgetMs - input.elapsedMs;
  if (left <= 0 || (input.triesLeft !== undefined && input.triesLeft < 1)) return undefined;
  const base = Math.max(input.elapsedMs, input.firstWaitMs ?? FIRST_UNREACHABLE_WAIT_MS);
  const jitter = Math.min(Math.max(input.jitter, 0), 1);
  return Math.max(1, Math.min(Math.round(base * (1 + jitter / 2)), left));
}
