import type { EventPayload, PlanGraph } from '@flex/contracts';
import type {
  ActiveRun,
  DeferredReplan,
  HitlRequestState,
  NodeState,
  PauseState,
  PlannedCore,
  PlannedRun,
  PlanRequestState,
  RunCore,
  RunState,
} from './run.state';

/**
 * The lifecycle rules of a run with a plan (docs/lifecycle.md), as pure folds of its events. The
 * status is never stored on its own: it follows from what holds the run, in this order: a pause,
 * then pending HITL requests, else it runs.
 */
export function settle(core: PlannedCore, pause?: PauseState): PlannedRun {
  if (pause) return { ...core, status: 'paused', pause };
  const waitingOn = Object.values(core.hitl)
    .filter((h) => h.status === 'pending')
    .map((h) => h.requestId);
  return waitingOn.length ? { ...core, status: 'awaiting_hitl', waitingOn } : { ...core, status: 'running' };
}

/** What a planned run is without its status and the fields only that status has. */
export function plannedCore(state: PlannedRun): PlannedCore {
  switch (state.status) {
    case 'running': {
      const { status: _status, ...core } = state;
      return core;
    }
    case 'awaiting_hitl': {
      const { status: _status, waitingOn: _waitingOn, ...core } = state;
      return core;
    }
    case 'paused': {
      const { status: _status, pause: _pause, ...core } = state;
      return core;
    }
  }
}

function runCore(state: ActiveRun): RunCore {
  if (state.status !== 'planning') return plannedCore(state);
  const { status: _status, plan: _plan, ...core } = state;
  return core;
}

const pauseOf = (state: ActiveRun): PauseState | undefined =>
  state.status === 'paused' ? state.pause : undefined;

/** Settle a planned run again after `change` (a planning run is left as it is). */
function resettle(state: ActiveRun, change: (core: PlannedCore) => PlannedCore): ActiveRun {
  if (state.status === 'planning') return state;
  return settle(change(plannedCore(state)), pauseOf(state));
}

/**
 * `plan_generated` / `plan_updated`: the run goes on with the new plan; a paused run stays paused
 * and requests still pending keep holding it. Completed nodes keep their outputs (DESIGN §5.6); a
 * node already tried keeps counting its attempts (a reused idempotency key would replay an agent's
 * cached answer) on a fresh budget; a node an operator is asked for keeps waiting for that answer.
 */
export function withPlan(state: ActiveRun, plan: PlanGraph, planVersion: number, score?: number): ActiveRun {
  const before = carriedCore(state);
  const nodes: Record<string, NodeState> = {};
  for (const node of plan.nodes) nodes[node.id] = carriedNode(before.nodes[node.id], before.hitl);
  const core: PlannedCore = {
    ...before,
    plan,
    planVersion,
    nodes,
    planRequest: undefined,
    satisfactionScore: score,
  };
  return settle(core, pauseOf(state));
}

/** What a new plan version carries over: everything but the plan and the replan it answers. */
function carriedCore(state: ActiveRun): RunCore & { deferredReplan?: DeferredReplan } {
  if (state.status === 'planning') return runCore(state);
  const { replan: _answered, plan: _plan, ...core } = plannedCore(state);
  return core;
}

function carriedNode(previous: NodeState | undefined, hitl: Record<string, HitlRequestState>): NodeState {
  if (!previous) return { status: 'pending', attempt: 0 };
  if (previous.status === 'completed') return previous;
  const asked = previous.hitlRequestId ? hitl[previous.hitlRequestId] : undefined;
  if (previous.status === 'awaiting_hitl' && asked && asked.status !== 'resolved') return previous;
  return previous.attempt > 0
    ? { status: 'pending', attempt: previous.attempt, reopenedFrom: previous.attempt + 1 }
    : { status: 'pending', attempt: 0 };
}

/** `hitl_request`: a pending request; a node-output request parks its node. */
export function withHitlRequest(state: ActiveRun, p: EventPayload<'hitl_request'>): ActiveRun {
  const mode = p.mode ?? (p.policyId ? 'approval' : 'node_output');
  const action = p.action?.type === 'hitl' ? p.action : undefined;
  const request: HitlRequestState = {
    requestId: p.requestId,
    mode,
    nodeId: p.nodeId,
    policyId: p.policyId,
    action,
    status: 'pending',
  };
  const hitl = { ...state.hitl, [p.requestId]: request };
  let nodes = state.nodes;
  if (mode === 'node_output' && p.nodeId) {
    const before = nodes[p.nodeId] ?? { status: 'pending', attempt: 0 };
    nodes = { ...nodes, [p.nodeId]: { ...before, status: 'awaiting_hitl', hitlRequestId: p.requestId } };
  }
  const next = { ...state, hitl, nodes, hitlCount: state.hitlCount + 1 };
  return resettle(next, (core) => core);
}

/**
 * `hitl_resolved`: the decision is recorded. On a paused run it waits for the resume (`decided`);
 * otherwise it is in effect now, and the executor runs its follow-up on this event.
 */
export function withHitlResolved(
  state: ActiveRun,
  p: EventPayload<'hitl_resolved'>,
  eventId: string,
): ActiveRun {
  const request = state.hitl[p.requestId];
  if (!request || request.status !== 'pending') return state;
  const decision = {
    decision: p.decision,
    ...(p.note !== undefined ? { note: p.note } : {}),
    ...(p.payload !== undefined ? { payload: p.payload } : {}),
  };
  const decided: HitlRequestState =
    state.status === 'paused'
      ? { ...request, ...decision, status: 'decided' }
      : {
          ...request,
          ...decision,
          status: 'resolved',
          effectiveAt: eventId,
          ...(p.followUpsApplied ? { followedUp: true as const } : {}),
        };
  return resettle({ ...state, hitl: { ...state.hitl, [p.requestId]: decided } }, (core) => core);
}

/**
 * `hitl_withdrawn`: a pending request nobody needs to answer any more is closed (no decision will
 * take effect); the `node_start` appended with it moves its node on.
 */
export function withHitlWithdrawn(state: ActiveRun, p: EventPayload<'hitl_withdrawn'>): ActiveRun {
  const request = state.hitl[p.requestId];
  if (!request || request.status !== 'pending') return state;
  const closed: HitlRequestState = { ...request, status: 'closed' };
  return resettle({ ...state, hitl: { ...state.hitl, [p.requestId]: closed } }, (core) => core);
}

/** `run_paused`: a planned run pauses (a second pause changes nothing); planning cannot pause. */
export function withPause(
  state: ActiveRun,
  p: EventPayload<'run_paused'>,
  event: { timestamp: string; id: string },
): ActiveRun {
  if (state.status === 'planning' || state.status === 'paused') return state;
  return settle(plannedCore(state), {
    reason: p.reason,
    ...(p.policyId ? { policyId: p.policyId } : {}),
    at: event.timestamp,
    eventId: event.id,
  });
}

/**
 * `run_resumed`: decisions made during the pause take effect now (the executor runs their
 * follow-ups on this event); the run waits for operators if requests are still pending, else runs.
 */
export function withResume(state: ActiveRun, eventId: string, followUpsApplied = false): ActiveRun {
  if (state.status !== 'paused') return state;
  const followed = followUpsApplied ? { followedUp: true as const } : {};
  const hitl: Record<string, HitlRequestState> = {};
  for (const [id, h] of Object.entries(state.hitl))
    hitl[id] = h.status === 'decided' ? { ...h, status: 'resolved', effectiveAt: eventId, ...followed } : h;
  return settle({ ...plannedCore(state), hitl });
}

/** `replan_deferred`: the replan waits for the pending decisions. */
export function withDeferredReplan(state: ActiveRun, p: EventPayload<'replan_deferred'>): ActiveRun {
  const deferredReplan = {
    trigger: p.trigger,
    waitingFor: p.waitingFor,
    ...(p.policyId ? { policyId: p.policyId } : {}),
    ...(p.nodeId ? { nodeId: p.nodeId } : {}),
  };
  return resettle(state, (core) => ({ ...core, deferredReplan }));
}

/** `plan_requested`: the planner is asked; a replan request answers the deferred replan, if any. */
export function withPlanRequest(
  state: ActiveRun,
  p: EventPayload<'plan_requested'>,
  eventId: string,
): ActiveRun {
  const replans = state.replans + (p.reason === 'replan' ? 1 : 0);
  const planRequest: PlanRequestState = {
    stage: 'asked',
    attempt: p.attempt,
    reason: p.reason,
    requestEventId: eventId,
  };
  const next = { ...state, replans, planAttempt: p.attempt, planRequest };
  if (p.reason !== 'replan') return next;
  const replan = { trigger: p.replan?.trigger ?? {}, outcome: 'asked' as const };
  return resettle(next, ({ deferredReplan: _answered, ...core }) => ({ ...core, replan }));
}

/**
 * `plan_drafted`: the planner answered the request asked; the validator owes its verdict. The planner
 * appends a draft only for the request asked (at the version it read), so a draft with none asked
 * answers nothing and changes nothing.
 */
export function withPlanDrafted(state: ActiveRun, eventId: string): ActiveRun {
  const request = state.planRequest;
  if (request?.stage !== 'asked') return state;
  return { ...state, planRequest: { ...request, stage: 'drafted', draftEventId: eventId } };
}

/**
 * `plan_rejected`: no valid plan came of the request in flight (the validator refused its draft, or
 * the planner found none), which ends it. A replan that ends so is `refused` until the validator asks
 * again (`plan_requested`) or a plan is accepted; when neither follows, the run keeps its plan.
 */
export function withPlanRejected(state: ActiveRun, diagnostics: RunCore['lastDiagnostics']): ActiveRun {
  const next = { ...state, planRequest: undefined, lastDiagnostics: diagnostics };
  return resettle(next, (core) =>
    core.replan ? { ...core, replan: { ...core.replan, outcome: 'refused' } } : core,
  );
}

/** The decided run, with its output, once `complete` is appended. */
export function completed(state: ActiveRun, output: Record<string, unknown>): RunState {
  if (state.status === 'planning') return state;
  const { deferredReplan: _deferred, replan: _replan, ...core } = plannedCore(state);
  return { ...core, status: 'completed', output };
}

export function failed(state: ActiveRun, failure: { code: string; reason: string }): RunState {
  return { ...endedCore(state), status: 'failed', failure };
}

export function cancelled(state: ActiveRun, cancellation: { by: string; reason?: string }): RunState {
  return { ...endedCore(state), status: 'cancelled', cancellation };
}

/**
 * What an ended run keeps: everything but what held it (a pause, a waiting replan). Its requests
 * still waiting for an operator or for the resume close with it: nothing will act on them now.
 */
function endedCore(state: ActiveRun): RunCore & { plan?: PlanGraph } {
  if (state.status === 'planning') return { ...runCore(state), hitl: closeOpenRequests(state.hitl) };
  const { deferredReplan: _waiting, replan: _replan, ...core } = plannedCore(state);
  return { ...core, hitl: closeOpenRequests(core.hitl) };
}

/** The requests with the open ones (`pending`, `decided`) closed; the same object when none is open. */
function closeOpenRequests(hitl: Record<string, HitlRequestState>): Record<string, HitlRequestState> {
  const open = Object.entries(hitl).filter(([, h]) => h.status === 'pending' || h.status === 'decided');
  if (open.length === 0) return hitl;
  const closed = { ...hitl };
  for (const [id, { requestId, mode, nodeId, policyId, action }] of open)
    closed[id] = { requestId, mode, nodeId, policyId, action, status: 'closed' };
  return closed;
}
