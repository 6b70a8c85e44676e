import { nextUnreachableWait } from '@flex/bus';
import { decision, NO_DECISION } from '@flex/decider';
import { isPlanned, pendingHitlRequests, type RunState } from '@flex/run-model';
import type { CapabilityView } from '@flex/runtime';
import { eventsAndWake, type ExecutorDecision } from './executor.decision';
import { nodeStart } from './node-start';
import type { UnreachableClock } from './unreachable.decide';

/** The first look at the registry after a stand-in request is raised; later looks double. */
const FIRST_LOOK_MS = 2_000;

/** A stand-in request is watched for this many unreachable budgets; after that it is the operator's alone. */
export const WATCH_BUDGETS = 10;

/** The node and capability a pending request stands in for, when it was raised because that agent was unreachable. */
export function standInOf(
  state: RunState,
  requestId: string,
): { nodeId: string; capabilityId: string } | undefined {
  if (!isPlanned(state)) return undefined;
  const request = state.hitl[requestId];
  if (request?.status !== 'pending' || request.mode !== 'node_output' || !request.nodeId) return undefined;
  const live = state.nodes[request.nodeId];
  if (live?.status !== 'awaiting_hitl' || live.hitlRequestId !== requestId) return undefined;
  if (live.error?.code !== 'agent_unreachable') return undefined;
  const planned = state.plan.nodes.find((n) => n.id === request.nodeId)?.capabilityId;
  const capabilityId = live.fallbackCapabilityId ?? live.capabilityId ?? planned;
  return capabilityId ? { nodeId: request.nodeId, capabilityId } : undefined;
}

/**
 * A human request raised because an agent was unreachable (its node failed with `agent_unreachable`
 * and went on to the human fallback) is withdrawn once the agent is back: the registry has seen it
 * alive since the request was raised. Then `hitl_withdrawn` closes the request and the node's next
 * attempt starts on that agent. Until then the registry is looked at again with backoff (the adapter
 * holds the `hitl_request` delivery) for {@link WATCH_BUDGETS} unreachable budgets, after which the
 * request stays with the operator. Nothing starts while the run is held otherwise (paused, another
 * request pending, a replan waiting or in flight: docs/lifecycle.md): it is looked at again later.
 */
export function decideWithdrawal(
  state: RunState,
  request: { requestId: string; raisedAt: string },
  seen: Pick<CapabilityView, 'status' | 'activeInstances' | 'lastSeenAt'> | undefined,
  clock: UnreachableClock,
): ExecutorDecision {
  const standIn = standInOf(state, request.requestId);
  if (!standIn || !isPlanned(state)) return NO_DECISION;
  const node = state.plan.nodes.find((n) => n.id === standIn.nodeId);
  const back =
    seen !== undefined &&
    seen.status === 'active' &&
    seen.activeInstances > 0 &&
    Date.parse(seen.lastSeenAt) > Date.parse(request.raisedAt);
  const held =
    state.status === 'paused' ||
    state.planRequest !== undefined ||
    state.deferredReplan !== undefined ||
    pendingHitlRequests(state).some((id) => id !== request.requestId);
  if (back && node && !held) {
    const attempt = (state.nodes[standIn.nodeId]?.attempt ?? 0) + 1;
    const reason = `${standIn.capabilityId} is back (seen ${seen.lastSeenAt}): ${node.id} runs on it again`;
    return decision([
      {
        type: 'hitl_withdrawn',
        payload: {
          requestId: request.requestId,
          reason,
          capabilityId: standIn.capabilityId,
          seenAt: seen.lastSeenAt,
        },
      },
      nodeStart(node, attempt, state, standIn.capabilityId),
    ]);
  }
  const wait = nextUnreachableWait({
    elapsedMs: clock.elapsedMs,
    budgetMs: clock.budgetMs * WATCH_BUDGETS,
    jitter: clock.jitter,
    triesLeft: clock.deliveriesLeft,
    firstWaitMs: FIRST_LOOK_MS,
  });
  return eventsAndWake([], wait);
}
