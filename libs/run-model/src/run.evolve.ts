import type { StoredEvent } from '@flex/event-store';
import type { EventPayload } from '@flex/contracts';
import { nodeCompleted, nodeFailed, nodeOutputRejected, nodeStarted, setNode } from './node.evolve';
import { payloadOf, type NodeState, type RunState, type StartedRun } from './run.state';

/** Fold one run-stream event into the state. Pure; unknown types only advance the version. */
export function evolveRun(state: RunState, event: StoredEvent): RunState {
  if (state.status === 'none') {
    if (event.type !== 'start') return state;
    const p = payloadOf(event, 'start');
    return {
      status: 'planning',
      runId: p.runId,
      correlationId: event.metadata.correlationId,
      envelope: p.envelope,
      owner: p.owner,
      version: event.version,
      planAttempt: 0,
      planVersion: 0,
      nodes: {},
      startedAt: event.timestamp,
      policyFirings: {},
      hitl: {},
      hitlCount: 0,
      replans: 0,
    };
  }
  const next = { ...state, version: event.version } as StartedRun;
  switch (event.type) {
    case 'plan_requested': {
      const p = payloadOf(event, 'plan_requested');
      const replans = next.replans + (p.reason === 'replan' ? 1 : 0);
      return { ...next, replans, planAttempt: p.attempt, pendingPlanRequest: { attempt: p.attempt, reason: p.reason, eventId: event.id } };
    }
    case 'plan_drafted': {
      const p = payloadOf(event, 'plan_drafted');
      return { ...next, pendingPlanRequest: undefined, pendingDraft: { attempt: p.attempt, eventId: event.id } };
    }
    case 'plan_rejected': {
      const p = payloadOf(event, 'plan_rejected');
      return { ...next, pendingDraft: undefined, lastDiagnostics: p.diagnostics };
    }
    case 'plan_generated': {
      const p = payloadOf(event, 'plan_generated');
      return withPlan(next, p.plan, p.planVersion, p.diagnostics.satisfactionScore);
    }
    case 'plan_updated': {
      const p = payloadOf(event, 'plan_updated');
      return withPlan(next, p.plan, p.version, p.diagnostics.satisfactionScore);
    }
    case 'node_start':
      return nodeStarted(next, payloadOf(event, 'node_start'), event.timestamp);
    case 'node_complete':
      return nodeCompleted(next, payloadOf(event, 'node_complete'));
    case 'node_error':
      return nodeFailed(next, payloadOf(event, 'node_error'), event.timestamp);
    case 'validation_error':
      return nodeOutputRejected(next, payloadOf(event, 'validation_error'));
    case 'policy_triggered':
      return withFiring(next, payloadOf(event, 'policy_triggered'));
    case 'hitl_request':
      return withHitlRequest(next, payloadOf(event, 'hitl_request'));
    case 'hitl_resolved':
      return withHitlResolved(next, payloadOf(event, 'hitl_resolved'));
    case 'run_paused': {
      const p = payloadOf(event, 'run_paused');
      if (next.status === 'paused' || next.status === 'planning') return next;
      const from = next.status === 'awaiting_hitl' ? 'awaiting_hitl' : 'running';
      return { ...next, status: 'paused', paused: { reason: p.reason, policyId: p.policyId, from, at: event.timestamp } } as RunState;
    }
    case 'run_resumed': {
      if (next.status !== 'paused') return next;
      return { ...next, status: next.paused?.from ?? 'running', paused: undefined } as RunState;
    }
    case 'complete': {
      const p = payloadOf(event, 'complete');
      return { ...next, status: 'completed', output: p.output } as RunState;
    }
    case 'run_failed': {
      const p = payloadOf(event, 'run_failed');
      return { ...next, status: 'failed', failure: { code: p.code, reason: p.reason } } as RunState;
    }
    case 'run_cancelled': {
      // Terminal: what was pending (HITL requests, retries, agent calls in flight) can move nothing.
      const p = payloadOf(event, 'run_cancelled');
      return { ...next, status: 'cancelled', cancellation: { by: p.cancelledBy, reason: p.reason } } as RunState;
    }
    default:
      return next;
  }
}

function withPlan(state: StartedRun, plan: StartedRun['plan'] & object, planVersion: number, score?: number): RunState {
  const nodes: Record<string, NodeState> = {};
  for (const node of plan.nodes) {
    // Completed work survives a new plan version (DESIGN §5.6). A node that already had attempts
    // keeps counting (a reused idempotency key would replay an agent's cached answer) on a fresh budget.
    const previous = state.nodes[node.id];
    const tried = previous && previous.attempt > 0 ? { attempt: previous.attempt, reopenedFrom: previous.attempt + 1 } : { attempt: 0 };
    nodes[node.id] = previous?.status === 'completed' ? previous : { status: 'pending', ...tried };
  }
  return { ...state, status: 'running', plan, planVersion, nodes, pendingPlanRequest: undefined, pendingDraft: undefined, satisfactionScore: score } as RunState;
}

function withFiring(state: StartedRun, p: { policyId: string; trigger: Record<string, unknown> }): RunState {
  const key = `${p.policyId}|${typeof p.trigger.key === 'string' ? p.trigger.key : String(p.trigger.kind)}`;
  return { ...state, policyFirings: { ...state.policyFirings, [key]: (state.policyFirings[key] ?? 0) + 1 } } as RunState;
}

function withHitlRequest(state: StartedRun, p: EventPayload<'hitl_request'>): RunState {
  const mode = p.mode ?? (p.policyId ? 'approval' : 'node_output');
  const hitl = { ...state.hitl, [p.requestId]: { requestId: p.requestId, mode, nodeId: p.nodeId, policyId: p.policyId, action: p.action?.type === 'hitl' ? p.action : undefined, status: 'pending' as const } };
  let next = { ...state, hitl, hitlCount: state.hitlCount + 1 } as StartedRun;
  if (mode === 'node_output' && p.nodeId) {
    const before = next.nodes[p.nodeId] ?? { status: 'pending', attempt: 0 };
    next = setNode(next, p.nodeId, { ...before, status: 'awaiting_hitl', hitlRequestId: p.requestId }) as StartedRun;
  }
  return (next.status === 'running' ? { ...next, status: 'awaiting_hitl' } : next) as RunState;
}

function withHitlResolved(state: StartedRun, p: EventPayload<'hitl_resolved'>): RunState {
  const request = state.hitl[p.requestId];
  if (!request || request.status !== 'pending') return state;
  const hitl = { ...state.hitl, [p.requestId]: { ...request, status: 'resolved' as const, decision: p.decision } };
  const stillWaiting = Object.values(hitl).some((h) => h.status === 'pending');
  const status = state.status === 'awaiting_hitl' && !stillWaiting ? 'running' : state.status;
  return { ...state, hitl, status } as RunState;
}
