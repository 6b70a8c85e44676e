import type { DecidedEvent } from '@flex/runtime';
import { isTerminal, type RunState } from '@flex/run-model';

export type InvokeOutcome =
  | { ok: true; output: Record<string, unknown>; durationMs: number; provenance?: readonly unknown[]; usage?: { tokens?: number; costCents?: number; model?: string } }
  | {
      ok: false;
      durationMs: number;
      error: { code: string; message: string; retryable: boolean };
      /** Set when the agent answered but its output broke the node's contract. */
      outputErrors?: Array<{ path: string; keyword?: string; message: string; facet?: string }>;
      /** Set when the agent refused the inputs as breaking its input contract. */
      inputErrors?: Array<{ path: string; keyword?: string; message: string; facet?: string }>;
    };

export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: (attempt: number) => number;
}

/**
 * Record what one invocation gave, if that attempt is still the live one: node_complete, or
 * node_error (with validation_error first when the output broke the contract) saying whether and
 * when it will be retried.
 */
export function decideInvocation(state: RunState, nodeId: string, attempt: number, outcome: InvokeOutcome, retry: RetryPolicy): DecidedEvent[] {
  // A pause or a HITL wait stops new work, not work in flight: its result is still recorded.
  if (state.status === 'none' || isTerminal(state)) return [];
  const node = state.nodes[nodeId];
  if (!node || node.status !== 'running' || node.attempt !== attempt) return [];
  const capabilityId = node.capabilityId ?? state.plan?.nodes.find((n) => n.id === nodeId)?.capabilityId;
  if (outcome.ok) {
    return [{ type: 'node_complete', payload: { nodeId, capabilityId, attempt, output: outcome.output, durationMs: outcome.durationMs, facetProvenance: outcome.provenance, ...(outcome.usage ? { usage: outcome.usage } : {}) } }];
  }
  // Attempts count per capability: a fallback capability gets its own retries.
  const onThisCapability = attempt - (node.fallbackFromAttempt ?? 1) + 1;
  const planned = state.plan?.nodes.find((n) => n.id === nodeId)?.retry;
  const maxAttempts = planned?.maxAttempts ?? retry.maxAttempts;
  const backoffMs = (n: number) => (planned ? Math.min(planned.backoffMs * 2 ** (n - 1), 10 * 60 * 1000) : retry.backoffMs(n));
  const willRetry = outcome.error.retryable && onThisCapability < maxAttempts;
  const events: DecidedEvent[] = [];
  if (outcome.inputErrors?.length) {
    events.push({ type: 'validation_error', payload: { scope: 'capability_input', nodeId, errors: outcome.inputErrors.slice(0, 50) } });
  }
  if (outcome.outputErrors?.length) {
    events.push({ type: 'validation_error', payload: { scope: 'capability_output', nodeId, errors: outcome.outputErrors.slice(0, 50) } });
  }
  events.push({
    type: 'node_error',
    payload: { nodeId, capabilityId, attempt, error: outcome.error, willRetry, retryInMs: willRetry ? backoffMs(onThisCapability) : undefined },
  });
  return events;
}
