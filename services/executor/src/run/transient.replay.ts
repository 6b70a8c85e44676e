import { payloadOf, type StoredEvent } from '@flex/event-store';
import { takenFromRecord, type Redecision } from '@flex/replay';
import type { RunState } from '@flex/run-model';
import { wakeOf } from './executor.decision';
import type { RetryPolicy } from './invoke.decide';
import {
  decideAttempt,
  unreachableLine,
  unreachablePrefix,
  type UnreachableClock,
  type UnreachableLineData,
} from './unreachable.decide';
import { decideWithdrawal } from './withdrawal.decide';

/**
 * The executor's decisions about an agent nobody could reach (issue 16), taken again from what the
 * record holds of the outside facts they were decided on: the budget clock (on the wait's `log` line
 * and on the `node_error` that ends it) and the registry's view (`seenAt` on `hitl_withdrawn`).
 * The jitter only spreads the wait, never what is appended: a replay draws none.
 */

/** The clock a wait's line or a give-up recorded, as `decideAttempt` read it. */
type RecordedClock = Pick<UnreachableClock, 'elapsedMs' | 'budgetMs' | 'deliveriesLeft'>;

/** The wait's clock recorded on an executor `log` line (`unreachableLine`), if it is one. */
export function unreachableWaitOf(event: StoredEvent): UnreachableLineData['unreachable'] | undefined {
  if (event.type !== 'log') return undefined;
  const { source, data } = payloadOf(event, 'log');
  if (source !== 'executor' || typeof data !== 'object' || data === null || Array.isArray(data))
    return undefined;
  const wait = (data as Partial<UnreachableLineData>).unreachable;
  return typeof wait === 'object' && wait !== null ? wait : undefined;
}

/**
 * The line an attempt's first wait wrote: `decideAttempt` must still decide to wait (nothing
 * appended, a wake-up) on the clock it recorded, and the line is written again from it.
 */
export function redecideUnreachableWait(
  state: RunState,
  start: { nodeId: string; attempt: number },
  line: StoredEvent,
  retry: RetryPolicy,
): Redecision {
  const wait = unreachableWaitOf(line) as UnreachableLineData['unreachable'];
  const clock = { ...wait, jitter: 0 };
  const outcome = {
    ok: false as const,
    durationMs: 0,
    unreachable: true as const,
    error: { code: wait.code, message: '', retryable: true },
  };
  const decided = decideAttempt(state, start.nodeId, start.attempt, outcome, { retry, unreachable: clock });
  const waits = decided.events.length === 0 && wakeOf(decided) !== undefined;
  return {
    via: 'decideAttempt (waiting)',
    events: waits
      ? [{ type: 'log', payload: unreachableLine(wait.capabilityId, wait.code, clock) }]
      : decided.events,
  };
}

/**
 * The attempt given up once the budget was spent: `decideAttempt` on the recorded clock, with the
 * agent's own error (the message after the give-up's prefix). Undefined for any other `node_error`.
 */
export function redecideUnreachableFailure(
  state: RunState,
  start: { nodeId: string; attempt: number },
  recorded: readonly StoredEvent[],
  retry: RetryPolicy,
): Redecision | undefined {
  const failed = recorded.find((e) => e.type === 'node_error');
  if (!failed) return undefined;
  const { error, unreachable } = payloadOf(failed, 'node_error');
  if (!unreachable) return undefined;
  const clock: UnreachableClock = { ...(unreachable as RecordedClock), jitter: 0 };
  const message = error.message.slice(unreachablePrefix(clock).length);
  const outcome = {
    ok: false as const,
    durationMs: 0,
    unreachable: true as const,
    error: { code: 'unreachable', message, retryable: true },
  };
  const decided = decideAttempt(state, start.nodeId, start.attempt, outcome, { retry, unreachable: clock });
  return { via: 'decideAttempt (budget spent)', events: decided.events };
}

/**
 * A stand-in request withdrawn when its agent came back: `decideWithdrawal` on the registry's view
 * the record keeps (`seenAt`). A record older than that field is taken as it is.
 */
export function redecideWithdrawal(state: RunState, trigger: StoredEvent, recorded: readonly StoredEvent[]) {
  const withdrawn = recorded[0];
  if (trigger.type !== 'hitl_request' || withdrawn?.type !== 'hitl_withdrawn') return undefined;
  const { seenAt } = payloadOf(withdrawn, 'hitl_withdrawn');
  if (!seenAt) return takenFromRecord(recorded);
  const { requestId } = payloadOf(trigger, 'hitl_request');
  const seen = { status: 'active' as const, activeInstances: 1, lastSeenAt: seenAt };
  // Only the wait (nothing appended) depends on the clock: any reading decides the same events.
  const clock = { elapsedMs: 0, budgetMs: 0, deliveriesLeft: 0, jitter: 0 };
  const decided = decideWithdrawal(state, { requestId, raisedAt: trigger.timestamp }, seen, clock);
  return { via: 'decideWithdrawal', events: decided.events };
}
