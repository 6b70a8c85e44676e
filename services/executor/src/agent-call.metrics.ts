import { boundedLabel, type FlexMetrics } from '@flex/runtime';
import type { InvokeOutcome } from './run/invoke.decide';

/**
 * Why an agent call failed, as a closed set: an agent's own error codes are its to choose, so any
 * code not listed here counts as `agent_error` (labels never carry what a third party wrote).
 */
const KINDS: Readonly<Record<string, string>> = {
  TIMEOUT: 'timeout',
  NO_RESPONDERS: 'no_responders',
  BUS_DISCONNECTED: 'bus_disconnected',
  PERMISSION_DENIED: 'permission_denied',
  invalid_input: 'invalid_input',
  invalid_output: 'invalid_output',
  secret_unavailable: 'secret_unavailable',
};

export function dispatchErrorKind(code: string): string {
  return Object.hasOwn(KINDS, code) ? KINDS[code] : 'agent_error';
}

/**
 * One attempt's agent call: its duration by capability and outcome, and a failure by kind. An agent
 * nobody reached (asked again within the unreachable budget) counts as a dispatch error, not as a
 * node's duration.
 */
export function recordAttempt(metrics: FlexMetrics, capabilityId: string, outcome: InvokeOutcome): void {
  const capability = boundedLabel(capabilityId);
  if (outcome.ok || !outcome.unreachable)
    metrics.observe(
      { family: 'nodeDuration', labels: { capability, outcome: outcome.ok ? 'ok' : 'error' } },
      outcome.durationMs / 1000,
    );
  if (!outcome.ok)
    metrics.count({
      family: 'dispatchErrors',
      labels: { capability, kind: dispatchErrorKind(outcome.error.code) },
    });
}
