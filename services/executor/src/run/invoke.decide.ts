import type { FacetProvenance } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import {
  enforcedConstraintErrors,
  isTerminal,
  type OutputIssue,
  type RunState,
  type StartedRun,
} from '@flex/run-model';
import type { AgentLog } from './agent-reply';
import { retryAfter, type RetryPolicy } from './retry.decide';

export { DEFAULT_RETRY, type RetryPolicy } from './retry.decide';

export type InvokeOutcome =
  | {
      ok: true;
      output: Record<string, unknown>;
      durationMs: number;
      provenance?: readonly FacetProvenance[];
      usage?: { tokens?: number; costCents?: number; model?: string };
      /** What the agent logged during the attempt (recorded as `log` events). */
      logs?: AgentLog[];
    }
  | {
      ok: false;
      durationMs: number;
      error: { code: string; message: string; retryable: boolean };
      /** Set when the agent answered but its output broke the node's contract. */
      outputErrors?: OutputIssue[];
      /** Set when the agent refused the inputs as breaking its input contract. */
      inputErrors?: OutputIssue[];
      /**
       * Nobody answered: no instance served the capability, or the connection to NATS was down.
       * Not a failed attempt while the unreachable budget lasts (see `decideAttempt`).
       */
      unreachable?: true;
      /** What the agent logged during the attempt (recorded as `log` events). */
      logs?: AgentLog[];
    };

/**
 * Record what one invocation gave, if that attempt is still the live one: node_complete, or
 * node_error (with validation_error first when the output broke the contract) saying whether and
 * when it will be retried. An output that meets the node's contract must still satisfy the hard
 * constraints the node `enforces` (on what it sees plus its output), else it is an invalid output.
 */
export function decideInvocation(
  state: RunState,
  nodeId: string,
  attempt: number,
  outcome: InvokeOutcome,
  retry: RetryPolicy,
): DecidedFlexEvent[] {
  // A pause or a HITL wait stops new work, not work in flight: its result is still recorded.
  if (state.status === 'none' || isTerminal(state)) return [];
  const node = state.nodes[nodeId];
  if (!node || node.status !== 'running' || node.attempt !== attempt) return [];
  const capabilityId = node.capabilityId ?? state.plan?.nodes.find((n) => n.id === nodeId)?.capabilityId;
  const checked = outcome.ok ? withEnforcedConstraints(state, nodeId, outcome) : outcome;
  const logged = logEvents(outcome.logs, { nodeId, attempt, capabilityId });
  if (checked.ok) {
    return [
      ...logged,
      {
        type: 'node_complete',
        payload: {
          nodeId,
          capabilityId,
          attempt,
          output: checked.output,
          durationMs: checked.durationMs,
          facetProvenance: checked.provenance ? [...checked.provenance] : undefined,
          ...(checked.usage ? { usage: checked.usage } : {}),
        },
      },
    ];
  }
  const events: DecidedFlexEvent[] = [...logged];
  if (checked.inputErrors?.length) {
    events.push({
      type: 'validation_error',
      payload: { scope: 'capability_input', nodeId, attempt, errors: checked.inputErrors.slice(0, 50) },
    });
  }
  if (checked.outputErrors?.length) {
    events.push({
      type: 'validation_error',
      payload: { scope: 'capability_output', nodeId, attempt, errors: checked.outputErrors.slice(0, 50) },
    });
  }
  const next = retryAfter(state, nodeId, attempt, checked.error.retryable, retry);
  events.push({
    type: 'node_error',
    payload: { nodeId, capabilityId, attempt, error: checked.error, ...next },
  });
  return events;
}

/** The agent's lines of one attempt as `log` events of the run, before what the attempt gave. */
function logEvents(
  logs: readonly AgentLog[] | undefined,
  at: { nodeId: string; attempt: number; capabilityId?: string },
): DecidedFlexEvent[] {
  return (logs ?? []).map((line) => ({
    type: 'log' as const,
    payload: {
      ...line,
      source: 'agent',
      nodeId: at.nodeId,
      attempt: at.attempt,
      ...(at.capabilityId ? { capabilityId: at.capabilityId } : {}),
    },
  }));
}

function withEnforcedConstraints(
  state: StartedRun,
  nodeId: string,
  outcome: Extract<InvokeOutcome, { ok: true }>,
): InvokeOutcome {
  const node = state.plan?.nodes.find((n) => n.id === nodeId);
  const errors = node ? enforcedConstraintErrors(state, node, outcome.output) : [];
  if (errors.length === 0) return outcome;
  const message = `output breaks ${errors.length === 1 ? 'a hard constraint' : `${errors.length} hard constraints`} the node enforces: ${errors[0].message}`;
  return {
    ok: false,
    durationMs: outcome.durationMs,
    error: { code: 'invalid_output', message: message.slice(0, 8_000), retryable: true },
    outputErrors: errors,
  };
}
