import { decision, type Decision } from '@flex/decider';
import type { DecidedFlexEvent } from '@flex/contracts';

/**
 * What the executor's adapter does for a decision, once its events are committed:
 * - `invoke`: call the agent serving `capabilityId` for this attempt; its answer is the next command;
 * - `wake`: look at the run again in `inMs` (a retry backoff or a run deadline): the delivery is held;
 * - `need_registry`: a node failed for good and may move to another capability: decide again with the
 *   registry's active capabilities (what they choose is recorded in the events, so a replay never asks).
 */
export type ExecutorEffect =
  | { type: 'invoke'; nodeId: string; attempt: number; capabilityId: string }
  | { type: 'wake'; inMs: number }
  | { type: 'need_registry' };

export type ExecutorDecision = Decision<ExecutorEffect>;

/** Events to append, and a wake-up when something is due later. */
export function eventsAndWake(events: readonly DecidedFlexEvent[], wakeInMs?: number): ExecutorDecision {
  return decision<ExecutorEffect>(events, wakeInMs === undefined ? [] : [{ type: 'wake', inMs: wakeInMs }]);
}

/** Decide again once the registry's active capabilities are known. */
export const NEED_REGISTRY: ExecutorDecision = decision<ExecutorEffect>([], [{ type: 'need_registry' }]);

/** The earliest wake-up a decision asks for. */
export function wakeOf(d: ExecutorDecision): number | undefined {
  const waits = d.effects.flatMap((e) => (e.type === 'wake' ? [e.inMs] : []));
  return waits.length ? Math.min(...waits) : undefined;
}

/** True when the decision can only be taken with the registry's view. */
export const needsRegistry = (d: ExecutorDecision): boolean =>
  d.effects.some((e) => e.type === 'need_registry');
