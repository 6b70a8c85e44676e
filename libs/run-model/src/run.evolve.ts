import type { StoredEvent } from '@flex/event-store';
import { nodeCompleted, nodeFailed, nodeOutputRejected, nodeStarted } from './node.evolve';
import {
  cancelled,
  completed,
  failed,
  withDeferredReplan,
  withHitlRequest,
  withHitlResolved,
  withPause,
  withPlan,
  withPlanDrafted,
  withPlanRejected,
  withPlanRequest,
  withResume,
} from './run.lifecycle';
import { isTerminal, payloadOf, type ActiveRun, type RunState } from './run.state';

/**
 * Fold one run-stream event into the state. Pure; unknown types only advance the version, and an
 * ended run only counts versions: nothing after its terminal event changes it.
 */
export function evolveRun(state: RunState, event: StoredEvent): RunState {
  if (state.status === 'none') return event.type === 'start' ? started(event) : state;
  if (isTerminal(state)) return { ...state, version: event.version };
  return evolveActive({ ...state, version: event.version }, event);
}

function started(event: StoredEvent): RunState {
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

function evolveActive(state: ActiveRun, event: StoredEvent): RunState {
  switch (event.type) {
    case 'plan_requested':
      return withPlanRequest(state, payloadOf(event, 'plan_requested'), event.id);
    case 'plan_drafted':
      return withPlanDrafted(state, event.id);
    case 'plan_rejected':
      return withPlanRejected(state, payloadOf(event, 'plan_rejected').diagnostics);
    case 'plan_generated': {
      const p = payloadOf(event, 'plan_generated');
      return withPlan(state, p.plan, p.planVersion, p.diagnostics.satisfactionScore);
    }
    case 'plan_updated': {
      const p = payloadOf(event, 'plan_updated');
      return withPlan(state, p.plan, p.version, p.diagnostics.satisfactionScore);
    }
    case 'node_start':
      return nodeStarted(state, payloadOf(event, 'node_start'), event.timestamp);
    case 'node_complete':
      return nodeCompleted(state, payloadOf(event, 'node_complete'));
    case 'node_error':
      return nodeFailed(state, payloadOf(event, 'node_error'), event.timestamp);
    case 'validation_error':
      return nodeOutputRejected(state, payloadOf(event, 'validation_error'));
    case 'policy_triggered':
      return withFiring(state, payloadOf(event, 'policy_triggered'));
    default:
      return evolveHolds(state, event);
  }
}

/** What holds or ends a run: HITL, pause and resume, a deferred replan, the terminal events. */
function evolveHolds(state: ActiveRun, event: StoredEvent): RunState {
  switch (event.type) {
    case 'hitl_request':
      return withHitlRequest(state, payloadOf(event, 'hitl_request'));
    case 'hitl_resolved':
      return withHitlResolved(state, payloadOf(event, 'hitl_resolved'), event.id);
    case 'replan_deferred':
      return withDeferredReplan(state, payloadOf(event, 'replan_deferred'));
    case 'run_paused':
      return withPause(state, payloadOf(event, 'run_paused'), event.timestamp);
    case 'run_resumed':
      return withResume(state, event.id);
    case 'complete':
      return completed(state, payloadOf(event, 'complete').output);
    case 'run_failed': {
      const p = payloadOf(event, 'run_failed');
      return failed(state, { code: p.code, reason: p.reason });
    }
    case 'run_cancelled': {
      // Terminal: what was pending (HITL requests, retries, agent calls in flight) can move nothing.
      const p = payloadOf(event, 'run_cancelled');
      return cancelled(state, { by: p.cancelledBy, reason: p.reason });
    }
    default:
      return state;
  }
}

function withFiring(state: ActiveRun, p: { policyId: string; trigger: Record<string, unknown> }): RunState {
  const key = `${p.policyId}|${typeof p.trigger.key === 'string' ? p.trigger.key : String(p.trigger.kind)}`;
  return { ...state, policyFirings: { ...state.policyFirings, [key]: (state.policyFirings[key] ?? 0) + 1 } };
}
