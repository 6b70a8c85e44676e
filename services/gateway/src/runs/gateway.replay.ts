import type { EventPayload } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import type { Redecision, ReplayAdapter, ReplayStep } from '@flex/replay';
import {
  decideCancel,
  decideHitlResolve,
  decideManualTrigger,
  decidePause,
  evolveRun,
  initialRunState,
  policyKeys,
  resumeDecider,
  withFollowUps,
  type ControlDecision,
  type RunLimits,
  type StartedRun,
} from '@flex/run-model';

/**
 * The gateway's commands, taken again (docs/AUDIT.md, "Verified replay"): the command is rebuilt
 * from the first event it appended (the operator's decision, the resume, the pause, the cancel, the
 * manual trigger) and decided again on the run before it, at the append's clock reading, follow-ups
 * included. A run's `start` is the caller's envelope (taken from the record); its `plan_requested`
 * is decided again.
 */
export function gatewayReplayAdapter(limits: RunLimits): ReplayAdapter {
  return {
    producer: 'gateway',
    component: (type) => (type === 'policy_triggered' ? 'gateway (policy engine)' : 'gateway'),
    redecide: (step) => redecide(step, limits),
  };
}

function redecide(step: ReplayStep, limits: RunLimits): Redecision[] {
  const [first] = step.recorded;
  if (first.type === 'start') return [started(first)];
  const state = step.history.reduce(evolveRun, initialRunState());
  if (state.status === 'none') return [];
  const decided = command(state, first, limits, step.now);
  return decided ? [{ via: `gateway ${first.type}`, events: decided.events }] : [];
}

function command(
  state: StartedRun,
  first: StoredEvent,
  limits: RunLimits,
  now: Date,
): ControlDecision | undefined {
  const { runId } = state;
  switch (first.type) {
    case 'hitl_resolved': {
      const { followUpsApplied: _, operator, ...request } = first.payload as EventPayload<'hitl_resolved'>;
      return withFollowUps(state, decideHitlResolve(state, { runId, ...request }, operator), limits, now);
    }
    case 'validation_error':
      return refusedNodeOutput(state, first.payload as EventPayload<'validation_error'>);
    case 'run_resumed': {
      const { expectedPlanVersion, resumedBy } = first.payload as EventPayload<'run_resumed'>;
      return resumeDecider(runId, expectedPlanVersion, resumedBy, limits, () => now)(state);
    }
    case 'run_paused': {
      const { pausedBy, reason } = first.payload as EventPayload<'run_paused'>;
      return decidePause(state, { runId, by: pausedBy ?? '', reason });
    }
    case 'run_cancelled': {
      const { cancelledBy, reason } = first.payload as EventPayload<'run_cancelled'>;
      return decideCancel(state, { runId, by: cancelledBy, reason });
    }
    case 'policy_triggered': {
      const { policyId } = first.payload as EventPayload<'policy_triggered'>;
      return decideManualTrigger(state, runId, policyId, now, limits);
    }
    default:
      return undefined;
  }
}

/**
 * An operator's node output that broke the node's contract: refused, with the errors recorded
 * (they are the contract's verdict on a payload the record does not keep, so taken as recorded).
 */
function refusedNodeOutput(state: StartedRun, recorded: EventPayload<'validation_error'>): ControlDecision {
  const pending = Object.values(state.hitl).find(
    (r) => r.status === 'pending' && r.mode === 'node_output' && r.nodeId === recorded.nodeId,
  );
  const request = { runId: state.runId, requestId: pending?.requestId ?? '', decision: 'approve' as const };
  return decideHitlResolve(state, { ...request, payload: {} }, '', recorded.errors);
}

function started(start: StoredEvent): Redecision {
  const { envelope } = start.payload as EventPayload<'start'>;
  const planRequested = { attempt: 1, reason: 'initial' as const, policyKeys: policyKeys(envelope) };
  return {
    via: 'gateway start',
    events: [
      { type: 'start', payload: start.payload },
      { type: 'plan_requested', payload: planRequested },
    ],
  };
}
