import type { EventPayload } from '@flex/contracts';
import { isTerminal, type HitlRequestState, type RunState, type StartedRun } from '../run.state';
import { decideAction } from './action.decide';
import { foldDecided, type Decided } from './fold';
import type { RunLimits } from './run-limits';

type ResolvedRequest = Extract<HitlRequestState, { status: 'resolved' }>;

/**
 * What follows the decisions that take effect on event `eventId` (pure; `state` already includes
 * that event): its `hitl_resolved`, or the `run_resumed` that applies the decisions made while the
 * run was paused, in the order the requests were raised. Each follow-up is decided on the state the
 * earlier ones leave; nothing follows once the run has ended.
 */
export function decideHitlFollowUps(
  state: RunState,
  eventId: string,
  limits: RunLimits,
  now: Date,
): Decided[] {
  if (state.status === 'none') return [];
  const out: Decided[] = [];
  let current: RunState = state;
  for (const request of Object.values(state.hitl)) {
    if (current.status === 'none' || isTerminal(current)) break;
    if (request.status !== 'resolved' || request.effectiveAt !== eventId || request.followedUp) continue;
    const events = followUp(current, request, limits);
    out.push(...events);
    current = foldDecided(current, events, now);
  }
  return out;
}

/**
 * What follows one resolved HITL request (pure; `state` already includes `hitl_resolved`). An
 * approval runs `approveAction` (default: resume), a rejection `rejectAction` (default: fail); a
 * node-output request completes the node with the operator's (already validated) payload.
 */
export function decideHitlFollowUp(
  state: StartedRun,
  resolved: EventPayload<'hitl_resolved'>,
  limits: RunLimits,
): Decided[] {
  const request = state.hitl[resolved.requestId];
  if (!request || request.status !== 'resolved' || request.followedUp || isTerminal(state)) return [];
  return followUp(state, request, limits);
}

function followUp(state: StartedRun, request: ResolvedRequest, limits: RunLimits): Decided[] {
  const trigger = { kind: 'hitl', requestId: request.requestId, decision: request.decision };
  const ctx = { policyId: request.policyId, nodeId: request.nodeId, trigger };
  if (request.decision === 'reject') {
    const reject = request.action?.rejectAction;
    if (reject) return decideAction(state, reject, ctx, limits);
    const note = request.note ? `: ${request.note}` : '';
    const reason = `an operator rejected HITL request ${request.requestId}${note}`;
    return [
      { type: 'run_failed', payload: strip({ code: 'hitl_rejected', reason, nodeId: request.nodeId }) },
    ];
  }
  if (request.mode === 'node_output' && request.nodeId) {
    const node = state.nodes[request.nodeId];
    if (!node || node.status !== 'awaiting_hitl' || node.hitlRequestId !== request.requestId) return [];
    const output = isObject(request.payload) ? request.payload : {};
    const payload = {
      nodeId: request.nodeId,
      capabilityId: node.capabilityId,
      attempt: Math.max(node.attempt, 1),
      output,
      durationMs: 0,
    };
    return [{ type: 'node_complete', payload: strip(payload) }];
  }
  return decideAction(state, request.action?.approveAction ?? 'resume', ctx, limits);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function strip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
