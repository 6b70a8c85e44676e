import type { PlanGraph } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import { descendantsOf, topologicalOrder, type StartedRun } from '@flex/run-model';
import type { PlainError } from './blame';
import type { AdvanceOptions } from './fallback.decide';
import { DEFAULT_RETRY, retryAfter } from './retry.decide';

type PlannedRun = StartedRun & { plan: PlanGraph };

/** Why the blamed nodes are repaired: the boundary that refused the output, and the failure they record. */
export interface RepairCause {
  scope: 'final_output' | 'capability_output';
  error: { code: string; message: string };
}

/**
 * Repair the nodes an output was blamed on: each records a `validation_error` (its feedback for the
 * next attempt), and the earliest of them fail their attempt with a `node_error` that reopens
 * their completed downstream nodes (whose inputs will change). From there each node's own chain
 * runs: a retry within its budget, the next capable agent, a HITL request, `run_failed`. A blamed
 * node downstream of another blamed node is not failed: it runs again anyway once reopened.
 */
export function repairBlamed(
  state: PlannedRun,
  blamed: ReadonlyMap<string, PlainError[]>,
  cause: RepairCause,
  options: AdvanceOptions,
): DecidedFlexEvent[] {
  const events: DecidedFlexEvent[] = [];
  for (const [nodeId, errors] of blamed) {
    const attempt = Math.max(state.nodes[nodeId]?.attempt ?? 1, 1);
    events.push({
      type: 'validation_error',
      payload: { scope: cause.scope, nodeId, attempt, errors: errors.slice(0, 50) },
    });
  }
  const ids = [...blamed.keys()];
  const earliest = ids.filter(
    (id) => !ids.some((other) => other !== id && descendantsOf(state.plan, other).has(id)),
  );
  const order = topologicalOrder(state.plan).map((n) => n.id);
  for (const nodeId of earliest) {
    const live = state.nodes[nodeId];
    const attempt = Math.max(live?.attempt ?? 1, 1);
    const next = retryAfter(state, nodeId, attempt, true, options.retry ?? DEFAULT_RETRY);
    const below = descendantsOf(state.plan, nodeId);
    const reopens = order.filter((id) => below.has(id) && state.nodes[id]?.status === 'completed');
    const payload = {
      nodeId,
      capabilityId: live?.capabilityId,
      attempt,
      error: { ...cause.error, retryable: true },
      ...next,
      ...(reopens.length ? { reopens } : {}),
    };
    events.push({ type: 'node_error', payload: JSON.parse(JSON.stringify(payload)) });
  }
  return events;
}
