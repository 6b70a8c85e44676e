import { nextUnreachableWait } from '@flex/bus';
import { NO_DECISION, decision } from '@flex/decider';
import { isTerminal, type RunState } from '@flex/run-model';
import { eventsAndWake, type ExecutorDecision } from './executor.decision';
import { decideInvocation, type InvokeOutcome, type RetryPolicy } from './invoke.decide';

/** Where an attempt stands in its unreachable budget; measured by the adapter, decided on here. */
export interface UnreachableClock {
  /** Since the attempt's `node_start` was appended. */
  elapsedMs: number;
  /** `FLEX_UNREACHABLE_BUDGET_MS`. */
  budgetMs: number;
  /** Deliveries of the `node_start` left before the bus would dead-letter it (and fail the run). */
  deliveriesLeft: number;
  /** A draw in [0, 1), spreading the runs that lost the same agent. */
  jitter: number;
}

export interface AttemptOptions {
  retry: RetryPolicy;
  unreachable: UnreachableClock;
}

/**
 * What one invocation's outcome decides (pure). An agent nobody could reach is not a failed attempt
 * (issue 16: transient is not failure): while the budget lasts nothing is appended and the
 * `node_start` comes back after a backoff (`wake`: the adapter holds its delivery, so the wait
 * survives a crash of this executor and blocks none of its other runs), and the same attempt asks
 * again. Once the budget is spent the attempt fails with `agent_unreachable`, not retryable: the
 * budget was its retries, so the node goes straight on down its chain (next capable agent, HITL,
 * `run_failed`). Any other outcome is {@link decideInvocation}'s.
 */
export function decideAttempt(
  state: RunState,
  nodeId: string,
  attempt: number,
  outcome: InvokeOutcome,
  options: AttemptOptions,
): ExecutorDecision {
  if (outcome.ok || !outcome.unreachable)
    return decision(decideInvocation(state, nodeId, attempt, outcome, options.retry));
  const live = state.status === 'none' || isTerminal(state) ? undefined : state.nodes[nodeId];
  if (!live || live.status !== 'running' || live.attempt !== attempt) return NO_DECISION;
  const { elapsedMs, budgetMs, deliveriesLeft, jitter } = options.unreachable;
  const wait = nextUnreachableWait({ elapsedMs, budgetMs, jitter, triesLeft: deliveriesLeft });
  if (wait !== undefined) return eventsAndWake([], wait);
  const failed = unreachableFailure(outcome, options.unreachable);
  const clock = { elapsedMs, budgetMs, deliveriesLeft };
  // The clock is an outside fact: recorded on the node_error, so a replay decides the failure again.
  return decision(
    decideInvocation(state, nodeId, attempt, failed, options.retry).map((event) =>
      event.type === 'node_error' && event.payload.error.code === 'agent_unreachable'
        ? { ...event, payload: { ...event.payload, unreachable: clock } }
        : event,
    ),
  );
}

/**
 * The run's `log` line when an attempt starts waiting for an unreachable agent (written once per
 * `node_start` by the adapter); its `data` holds what the wait was decided on, for a replay.
 */
export function unreachableLine(
  capabilityId: string,
  code: string,
  clock: UnreachableClock,
): { level: 'warn'; message: string; source: 'executor'; data: UnreachableLineData } {
  const { elapsedMs, budgetMs, deliveriesLeft } = clock;
  const message = `${capabilityId} is unreachable (${code}); asking again for up to ${budgetMs} ms before counting a failed attempt`;
  return {
    level: 'warn',
    message,
    source: 'executor',
    data: { unreachable: { capabilityId, code, elapsedMs, budgetMs, deliveriesLeft } },
  };
}

/** What {@link unreachableLine} records of the wait it announces. */
export interface UnreachableLineData {
  unreachable: {
    capabilityId: string;
    code: string;
    elapsedMs: number;
    budgetMs: number;
    deliveriesLeft: number;
  };
}

/** The prefix {@link decideAttempt} puts before the agent's own message once the budget is spent. */
export function unreachablePrefix(clock: Pick<UnreachableClock, 'elapsedMs' | 'budgetMs'>): string {
  return `unreachable for ${clock.elapsedMs} ms (budget ${clock.budgetMs} ms): `;
}

function unreachableFailure(outcome: InvokeOutcome & { ok: false }, clock: UnreachableClock): InvokeOutcome {
  const message = `${unreachablePrefix(clock)}${outcome.error.message}`;
  return {
    ok: false,
    durationMs: outcome.durationMs,
    error: { code: 'agent_unreachable', message: message.slice(0, 8_000), retryable: false },
  };
}
