import type { EventPayload } from '@flex/contracts';
import { isTerminal, type StartedRun } from '../run.state';
import { decideAction } from './action.decide';
import type { Decided } from './fold';
import type { RunLimits } from './run-limits';

/**
 * What follows a resolved HITL request (pure; `state` already includes `hitl_resolved`). An
 * approval runs `approveAction` (default: resume), a rejection `rejectAction` (default: fail); a
 * node-output request completes the node with the operator's (already validated) payload.
 */
export function decideHitlFollowUp(state: StartedRun, resolved: EventPayload<'hitl_resolved'>, limits: RunLimits): Decided[] {
  if (isTerminal(state)) return [];
  const request = state.hitl[resolved.requestId];
  if (!request || request.status !== 'resolved') return [];
  const trigger = { kind: 'hitl', requestId: request.requestId, decision: resolved.decision };
  const ctx = { policyId: request.policyId, nodeId: request.nodeId, trigger };
  if (resolved.decision === 'reject') {
    const reject = request.action?.rejectAction;
    if (reject) return decideAction(state, reject, ctx, limits);
    return [{ type: 'run_failed', payload: strip({ code: 'hitl_rejected', reason: `an operator rejected HITL request ${request.requestId}${resolved.note ? `: ${resolved.note}` : ''}`, nodeId: request.nodeId }) }];
  }
  if (request.mode === 'node_output' && request.nodeId) {
    const node = state.nodes[request.nodeId];
    if (!node || node.status !== 'awaiting_hitl' || node.hitlRequestId !== request.requestId) return [];
    const output = (resolved.payload ?? {}) as Record<string, unknown>;
    return [{ type: 'node_complete', payload: strip({ nodeId: request.nodeId, capabilityId: node.capabilityId, attempt: Math.max(node.attempt, 1), output, durationMs: 0 }) }];
  }
  return decideAction(state, request.action?.approveAction ?? 'resume', ctx, limits);
}

function strip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
