import { typedEvent, type StoredEvent, type TypedEvent, type TypedEventOf } from '@flex/event-store';
import { nodeCompleted, nodeFailed, nodeOutputRejected, nodeStarted } from './node.evolve';
import {
  cancelled,
  completed,
  failed,
  withDeferredReplan,
  withHitlRequest,
  withHitlResolved,
  withHitlWithdrawn,
  withPause,
  withPlan,
  withPlanDrafted,
  withPlanRejected,
  withPlanRequest,
  withResume,
} from './run.lifecycle';
import { firingKey, withNodeVerdict, withoutDue } from './policy/due-firings';
import { isTerminal, type ActiveRun, type RunState } from './run.state';

/**
 * Fold one run-stream event into the state. Pure; unknown types only advance the version, and an
 * ended run only counts versions: nothing after its terminal event changes it.
 */
export function evolveRun(state: RunState, stored: StoredEvent): RunState {
  const event = typedEvent(stored);
  if (!event) return state.status === 'none' ? state : { ...state, version: stored.version };
  if (state.status === 'none') return event.type === 'start' ? started(event) : state;
  if (isTerminal(state)) return { ...state, version: event.version };
  return evolveActive({ ...state, version: event.version }, event);
}

function started(event: TypedEventOf<'start'>): RunState {
  const p = event.payload;
  return {
    status: 'planning',
    runId: p.runId,
    correlationId: event.metadata.correlationId,
    ...(event.metadata.traceparent ? { traceparent: event.metadata.traceparent } : {}),
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

function evolveActive(state: ActiveRun, event: TypedEvent): RunState {
  switch (event.type) {
    case 'plan_requested':
      return withPlanRequest(state, event.payload, event.id);
    case 'plan_drafted':
      return withPlanDrafted(state, event.id);
    case 'plan_rejected':
      return withPlanRejected(state, event.payload.diagnostics);
    case 'plan_generated': {
      const p = event.payload;
      return withPlan(state, p.plan, p.planVersion, p.diagnostics.satisfactionScore);
    }
    case 'plan_updated': {
      const p = event.payload;
      return withPlan(state, p.plan, p.version, p.diagnostics.satisfactionScore);
    }
    case 'node_start':
      return nodeStarted(state, event.payload, event.timestamp);
    case 'node_complete': {
      const input = { kind: 'onNodeComplete', nodeId: event.payload.nodeId, eventId: event.id } as const;
      return withNodeVerdict(nodeCompleted(state, event.payload), input, event.timestamp);
    }
    case 'node_error':
      return nodeFailed(state, event.payload, event.timestamp);
    case 'validation_error': {
      const p = event.payload;
      const rejected = nodeOutputRejected(state, p);
      // A final output blamed on a node is that node's validation failure too.
      if (!p.nodeId || p.scope === 'envelope') return rejected;
      const input = {
        kind: 'onValidationFail',
        nodeId: p.nodeId,
        eventId: event.id,
        errors: p.errors,
      } as const;
      return withNodeVerdict(rejected, input, event.timestamp);
    }
    case 'policy_triggered':
      return withFiring(state, event.payload);
    default:
      return evolveHolds(state, event);
  }
}

/** What holds or ends a run: HITL, pause and resume, a deferred replan, the terminal events. */
function evolveHolds(state: ActiveRun, event: TypedEvent): RunState {
  switch (event.type) {
    case 'hitl_request':
      return withHitlRequest(state, event.payload);
    case 'hitl_resolved':
      return withHitlResolved(state, event.payload, event.id);
    case 'hitl_withdrawn':
      return withHitlWithdrawn(state, event.payload);
    case 'replan_deferred':
      return withDeferredReplan(state, event.payload);
    case 'run_paused':
      return withPause(state, event.payload, event);
    case 'run_resumed':
      return withResume(state, event.id, event.payload.followUpsApplied === true);
    case 'complete':
      return completed(state, event.payload.output);
    case 'run_failed': {
      const p = event.payload;
      return failed(state, { code: p.code, reason: p.reason });
    }
    case 'run_cancelled': {
      // Terminal: what was pending (HITL requests, retries, agent calls in flight) can move nothing.
      const p = event.payload;
      return cancelled(state, { by: p.cancelledBy, reason: p.reason });
    }
    default:
      return state;
  }
}

function withFiring(state: ActiveRun, p: { policyId: string; trigger: Record<string, unknown> }): RunState {
  const key = firingKey(p.policyId, p.trigger);
  const recorded = withoutDue(state, key);
  return {
    ...recorded,
    policyFirings: { ...state.policyFirings, [key]: (state.policyFirings[key] ?? 0) + 1 },
  };
}
