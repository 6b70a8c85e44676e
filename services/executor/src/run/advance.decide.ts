import type { PlanNode } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import {
  mainPathComplete,
  pendingHitlRequests,
  readyNodes,
  replanInFlight,
  type RunState,
  type StartedRun,
} from '@flex/run-model';
import { decision, NO_DECISION } from '@flex/decider';
import { eventsAndWake } from './executor.decision';
import { fallbackChain, type AdvanceDecision, type AdvanceOptions } from './fallback.decide';
import { finish } from './final-output.decide';
import { nodeStart } from './node-start';
import { runVirtual } from './virtual-node.decide';

export { nodeOutputRequest, type AdvanceDecision, type AdvanceOptions } from './fallback.decide';

/**
 * Move a running run forward (pure): start due retries; take a node that failed for good down its
 * fallback chain (fallback capability, then the plan's HITL fallback node, then fail the run); start
 * ready nodes (virtual nodes complete at once); compose the final output when the main path is
 * done, repairing the node it blames when it breaks the contract. Nothing starts while a replan is
 * pending, the run is paused or waits for an operator.
 */
export function decideAdvance(state: RunState, now: Date, options: AdvanceOptions = {}): AdvanceDecision {
  // Only a running run moves: a pause, a pending HITL request, a replan in flight or waiting hold it.
  if (state.status !== 'running' || state.deferredReplan || replanInFlight(state)) return NO_DECISION;
  // Nor while a policy a node event made fire is owed (RunCore.dueFirings): it is acted on first.
  if (state.dueFirings?.length) return NO_DECISION;
  const planned = { ...state, plan: state.plan };
  const failed = Object.entries(state.nodes).find(([, n]) => n.status === 'failed');
  const failedNode = failed && state.plan.nodes.find((n) => n.id === failed[0]);
  if (failed && failedNode) return fallbackChain(planned, failedNode, failed[1], options);
  const { events, wakeInMs } = dueRetries(planned, now);
  for (const node of readyNodes(state.plan, state.nodes)) {
    // A node reopened by a repair upstream runs its next attempt (a new idempotency key).
    const live = state.nodes[node.id];
    const attempt = (live?.attempt ?? 0) + 1;
    if (node.capabilityId) {
      events.push(nodeStart(node, attempt, state, live?.fallbackCapabilityId ?? node.capabilityId));
      continue;
    }
    const run = runVirtual(planned, node, attempt, options);
    // Repairing its lanes changes what is ready: decide the rest once the repair is recorded.
    if (run.kind === 'repair') return decision(run.events);
    events.push(...run.events);
  }
  const busy = Object.values(state.nodes).some((n) => n.status !== 'completed' && n.status !== 'pending');
  // Never complete while a human gate is open (a running run has none pending; this keeps it so).
  const done = events.length === 0 && !busy && pendingHitlRequests(state).length === 0;
  if (done && mainPathComplete(state.plan, state.nodes)) return decision(finish(planned, options));
  return eventsAndWake(events, wakeInMs);
}

function dueRetries(
  state: StartedRun & { plan: NonNullable<StartedRun['plan']> },
  now: Date,
): { events: DecidedFlexEvent[]; wakeInMs?: number } {
  const events: DecidedFlexEvent[] = [];
  let wakeInMs: number | undefined;
  for (const [nodeId, node] of Object.entries(state.nodes)) {
    if (node.status !== 'retry_wait') continue;
    const planned: PlanNode | undefined = state.plan.nodes.find((n) => n.id === nodeId);
    const wait = Date.parse(node.retryAt ?? '') - now.getTime();
    if (!planned) continue;
    if (wait <= 0) events.push(nodeStart(planned, node.attempt + 1, state, node.capabilityId));
    else wakeInMs = Math.min(wakeInMs ?? wait, wait);
  }
  return { events, wakeInMs };
}
