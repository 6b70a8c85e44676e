import type { StoredEvent } from '@flex/event-store';
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
    };
  }
  const next = { ...state, version: event.version } as StartedRun;
  switch (event.type) {
    case 'plan_requested': {
      const p = payloadOf(event, 'plan_requested');
      return { ...next, planAttempt: p.attempt, pendingPlanRequest: { attempt: p.attempt, reason: p.reason, eventId: event.id } };
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
      return withPlan(next, p.plan, p.planVersion, p.satisfactionScore);
    }
    case 'plan_updated': {
      const p = payloadOf(event, 'plan_updated');
      return withPlan(next, p.plan, p.version, next.satisfactionScore);
    }
    case 'node_start': {
      const p = payloadOf(event, 'node_start');
      return setNode(next, p.nodeId, { status: 'running', attempt: p.attempt, startedAt: event.timestamp });
    }
    case 'node_complete': {
      const p = payloadOf(event, 'node_complete');
      return setNode(next, p.nodeId, { status: 'completed', attempt: p.attempt, output: p.output });
    }
    case 'node_error': {
      const p = payloadOf(event, 'node_error');
      const retryAt = p.willRetry ? new Date(Date.parse(event.timestamp) + (p.retryInMs ?? 0)).toISOString() : undefined;
      return setNode(next, p.nodeId, { status: p.willRetry ? 'retry_wait' : 'failed', attempt: p.attempt, error: p.error, retryAt });
    }
    case 'complete': {
      const p = payloadOf(event, 'complete');
      return { ...next, status: 'completed', output: p.output } as RunState;
    }
    case 'run_failed': {
      const p = payloadOf(event, 'run_failed');
      return { ...next, status: 'failed', failure: { code: p.code, reason: p.reason } } as RunState;
    }
    default:
      return next;
  }
}

function withPlan(state: StartedRun, plan: StartedRun['plan'] & object, planVersion: number, score?: number): RunState {
  const nodes: Record<string, NodeState> = {};
  for (const node of plan.nodes) {
    // Completed work survives a new plan version (DESIGN §5.6).
    const previous = state.nodes[node.id];
    nodes[node.id] = previous?.status === 'completed' ? previous : { status: 'pending', attempt: 0 };
  }
  return { ...state, status: 'running', plan, planVersion, nodes, pendingDraft: undefined, satisfactionScore: score } as RunState;
}

function setNode(state: StartedRun, nodeId: string, node: NodeState): RunState {
  return { ...state, nodes: { ...state.nodes, [nodeId]: node } } as RunState;
}
