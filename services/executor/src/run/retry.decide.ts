import type { StartedRun } from '@flex/run-model';

export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: (attempt: number) => number;
}

/** The executor's retry policy for `FLEX_NODE_MAX_ATTEMPTS`: backoff doubling from 250 ms, at most 10 s. */
export function retryPolicy(maxAttempts: number): RetryPolicy {
  return { maxAttempts, backoffMs: (attempt) => Math.min(250 * 2 ** (attempt - 1), 10_000) };
}

/** What a decider assumes when the adapter gives no retry policy (`FLEX_NODE_MAX_ATTEMPTS`'s default). */
export const DEFAULT_RETRY: RetryPolicy = retryPolicy(3);

/**
 * Whether a failed `attempt` of a node is tried again, and after how long. Attempts count per
 * capability (a fallback capability gets its own retries) and per round (a node reopened because an
 * upstream node was repaired starts a new budget); the plan's own retry policy wins over the default.
 */
export function retryAfter(
  state: StartedRun,
  nodeId: string,
  attempt: number,
  retryable: boolean,
  retry: RetryPolicy,
): { willRetry: boolean; retryInMs?: number } {
  const node = state.nodes[nodeId];
  const budgetFrom = Math.max(node?.fallbackFromAttempt ?? 1, node?.reopenedFrom ?? 1);
  const spent = attempt - budgetFrom + 1;
  const planned = state.plan?.nodes.find((n) => n.id === nodeId)?.retry;
  const maxAttempts = planned?.maxAttempts ?? retry.maxAttempts;
  const backoffMs = (n: number) =>
    planned ? Math.min(planned.backoffMs * 2 ** (n - 1), 10 * 60 * 1000) : retry.backoffMs(n);
  const willRetry = retryable && spent < maxAttempts;
  return willRetry ? { willRetry, retryInMs: backoffMs(spent) } : { willRetry };
}
