import type { DecidedEvent } from '@flex/runtime';
import type { RunState } from '@flex/run-model';

export type InvokeOutcome =
  | { ok: true; output: Record<string, unknown>; durationMs: number; provenance?: readonly unknown[] }
  | {
      ok: false;
      durationMs: number;
      error: { code: string; message: string; retryable: boolean };
      /** Set when the agent answered but its output broke the node's contract. */
      outputErrors?: Array<{ path: string; keyword?: string; message: string; facet?: string }>;
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
  if (state.status !== 'running') return [];
  const node = state.nodes[nodeId];
  if (!node || node.status !== 'running' || node.attempt !== attempt) return [];
  const capabilityId = state.plan?.nodes.find((n) => n.id === nodeId)?.capabilityId;
  if (outcome.ok) {
    return [{ type: 'node_complete', payload: { nodeId, capabilityId, attempt, output: outcome.output, durationMs: outcome.durationMs, facetProvenance: outcome.provenance } }];
  }
  const willRetry = outcome.error.retryable && attempt < retry.maxAttempts;
  const events: DecidedEvent[] = [];
  if (outcome.outputErrors?.length) {
    events.push({ type: 'validation_error', payload: { scope: 'capability_output', nodeId, errors: outcome.outputErrors } });
  }
  events.push({
    type: 'node_error',
    payload: { nodeId, capabilityId, attempt, error: outcome.error, willRetry, retryInMs: willRetry ? retry.backoffMs(attempt) : undefined },
  });
  return events;
}
