import type { DecidedFlexEvent, HitlResolveRequest } from '@flex/contracts';
import { decision } from '@flex/decider';
import { isTerminal, type RunState } from '../run.state';
import { refuse, refusalOf, type ControlDecision } from './control.decision';
import { decidedEventId, foldDecided } from './fold';
import { decideHitlFollowUps } from './hitl.decide';
import { decideFirings } from './action.decide';
import { evaluatePolicies, runtimePolicies } from './policy.evaluate';
import type { RunLimits } from './run-limits';

/**
 * `POST hitl/resolve` (pure). `outputErrors`: for a node-output request, what the node's compiled
 * output contract says about `payload` (the adapter validates); errors keep the node waiting and
 * are recorded as `validation_error`.
 */
export function decideHitlResolve(
  state: RunState,
  request: HitlResolveRequest,
  operator: string,
  outputErrors: Array<{ path: string; keyword?: string; message: string; facet?: string }> = [],
): ControlDecision {
  if (state.status === 'none') return refuse('run_not_found', `no run ${request.runId}`);
  const pending = state.hitl[request.requestId];
  if (!pending)
    return refuse('hitl_request_not_found', `run ${request.runId} has no HITL request ${request.requestId}`);
  // A closed request closed with its run: the refusal below names the ended run.
  if (pending.status === 'decided' || pending.status === 'resolved')
    return refuse(
      'hitl_already_resolved',
      `HITL request ${request.requestId} was already resolved (${pending.decision})`,
    );
  if (isTerminal(state))
    return refuse('invalid_run_state', `run ${request.runId} has already ended (${state.status})`);
  if (pending.mode === 'node_output' && request.decision === 'approve') {
    if (
      request.payload === undefined ||
      !request.payload ||
      typeof request.payload !== 'object' ||
      Array.isArray(request.payload)
    ) {
      outputErrors = [
        { path: '/', message: 'approving a node-output request needs payload: the node output object' },
      ];
    }
    if (outputErrors.length) {
      const errors = outputErrors.slice(0, 50);
      return refuse(
        'invalid_hitl_payload',
        `payload${errors[0].path === '/' ? '' : errors[0].path}: ${errors[0].message}`,
        [
          {
            type: 'validation_error',
            payload: { scope: 'capability_output', nodeId: pending.nodeId, errors },
          },
        ],
      );
    }
  }
  const resolved = {
    requestId: request.requestId,
    decision: request.decision,
    note: request.note,
    payload: request.payload,
    operator,
  };
  return decision([{ type: 'hitl_resolved', payload: JSON.parse(JSON.stringify(resolved)) }]);
}

/**
 * `POST run.resume` (pure): only a paused run, only on the plan version the caller saw and, with
 * `pauseSeen` (a `run_paused` event id), only that pause: a resume never resumes a later pause.
 */
export function decideResume(
  state: RunState,
  runId: string,
  expectedPlanVersion: number,
  by: string,
  pauseSeen?: string,
): ControlDecision {
  if (state.status === 'none') return refuse('run_not_found', `no run ${runId}`);
  if (state.status !== 'paused')
    return refuse('invalid_run_state', `run ${runId} is ${state.status}, not paused`);
  if (pauseSeen !== undefined && state.pause.eventId !== pauseSeen)
    return refuse(
      'invalid_run_state',
      `run ${runId} was resumed and paused again (${state.pause.reason}); resume the new pause on its own`,
    );
  if (state.planVersion !== expectedPlanVersion)
    return refuse(
      'stale_plan_version',
      `run ${runId} is on plan version ${state.planVersion}, not ${expectedPlanVersion}`,
    );
  return decision([{ type: 'run_resumed', payload: { expectedPlanVersion, resumedBy: by } }]);
}

/** `POST runs/:id/policies/:policyId/trigger` (pure): fire a `manual` policy now. */
export function decideManualTrigger(
  state: RunState,
  runId: string,
  policyId: string,
  now: Date,
  limits: RunLimits,
): ControlDecision {
  if (state.status === 'none') return refuse('run_not_found', `no run ${runId}`);
  const policy = runtimePolicies(state).find((p) => p.id === policyId);
  if (!policy) return refuse('policy_not_found', `run ${runId} has no enabled runtime policy ${policyId}`);
  if (policy.trigger.kind !== 'manual')
    return refuse('policy_not_manual', `policy ${policyId} fires on ${policy.trigger.kind}, not manually`);
  if (isTerminal(state))
    return refuse('invalid_run_state', `run ${runId} has already ended (${state.status})`);
  // Policies act on a plan: before the first one is accepted there is nothing to pause, replan or ask about.
  if (state.status === 'planning')
    return refuse('invalid_run_state', `run ${runId} is still planning; policies act once it has a plan`);
  const firings = evaluatePolicies(state, { kind: 'manual', policyId }, now);
  return decision(decideFirings(state, firings, limits, now));
}

/**
 * {@link decideResume} for a command that decides again after a write conflict: `pauseId` (the
 * caller's) or else the first state it sees names the pause it resumes, so of two resumes of one
 * pause exactly one wins even when the run, resumed by the other, has paused again meanwhile.
 */
export function resumeDecider(
  runId: string,
  expectedPlanVersion: number,
  by: string,
  limits: RunLimits,
  now: () => Date,
  pauseId?: string,
): (state: RunState) => ControlDecision {
  let pauseSeen = pauseId;
  return (state) => {
    if (state.status === 'paused') pauseSeen ??= state.pause.eventId;
    const at = now();
    return withFollowUps(state, decideResume(state, runId, expectedPlanVersion, by, pauseSeen), limits, at);
  };
}

/**
 * An operator's decision with its consequence in one append: when `decided` (a `hitl_resolved`, or a
 * `run_resumed`) makes HITL decisions take effect, their follow-ups (a rejection's fail or pause, an
 * approval's action, an operator's node output) are decided now and appended after it, and the event
 * says so (`followUpsApplied`). Left to a later reaction of the executor, a reaction to another event
 * of the run could start a node or complete the run first, past an operator's rejection.
 */
export function withFollowUps(
  state: RunState,
  decided: ControlDecision,
  limits: RunLimits,
  now: Date,
): ControlDecision {
  if (refusalOf(decided) || decided.events.length !== 1 || state.status === 'none') return decided;
  const [event] = decided.events;
  if (event.type !== 'hitl_resolved' && event.type !== 'run_resumed') return decided;
  const probe = foldDecided(state, [event], now);
  if (probe.status === 'none') return decided;
  const id = decidedEventId(probe.version, 0);
  const effective = Object.values(probe.hitl).some((r) => r.status === 'resolved' && r.effectiveAt === id);
  if (!effective) return decided;
  const followUps = decideHitlFollowUps(probe, id, limits, now);
  const marked = { ...event, payload: { ...event.payload, followUpsApplied: true as const } };
  return decision([marked, ...followUps] as DecidedFlexEvent[]);
}
