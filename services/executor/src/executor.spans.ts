import { typedEvent, type StoredEvent } from '@flex/event-store';
import type { StartedRun } from '@flex/run-model';
import { ATTR, markFailed, recordSpan, SpanKind, type Span, type SpanOptions } from '@flex/tracing';
import type { InvokeOutcome } from './run/invoke.decide';

/** One attempt of a node: the agent's own span (through the invocation's `traceparent` header) is its child. */
export function nodeAttemptSpan(
  state: StartedRun,
  call: { nodeId: string; capabilityId: string; attempt: number },
): SpanOptions {
  return {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR.runId]: state.runId,
      [ATTR.planVersion]: state.planVersion,
      [ATTR.nodeId]: call.nodeId,
      [ATTR.capabilityId]: call.capabilityId,
      [ATTR.nodeAttempt]: call.attempt,
    },
  };
}

/** How the attempt ended: ok, or failed with the error's code (never its message). */
export function endAttempt(span: Span, outcome: InvokeOutcome): void {
  span.setAttribute(ATTR.outcome, outcome.ok ? 'ok' : outcome.error.code);
  if (!outcome.ok) markFailed(span, outcome.error.code);
}

/**
 * A `policy.evaluate` span for each evaluation that fired, as its `policy_triggered` records it: the
 * policy engine is pure code, so its evaluations are traced from what it decided.
 */
export function tracePolicyFirings(appended: readonly StoredEvent[]): void {
  for (const stored of appended) {
    const event = typedEvent(stored);
    if (event?.type !== 'policy_triggered') continue;
    const { policyId, actionDetails, decision, nodeId } = event.payload;
    recordSpan('policy.evaluate', {
      startTime: new Date(stored.timestamp),
      attributes: {
        [ATTR.policyId]: policyId,
        [ATTR.policyAction]: actionDetails.type,
        [ATTR.policyDecision]: decision.result,
        ...(nodeId ? { [ATTR.nodeId]: nodeId } : {}),
      },
    });
  }
}
