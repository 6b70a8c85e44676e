import type { HitlAction, DiagnosticsBundle, EventPayload, PlanGraph, TaskEnvelope } from '@flex/contracts';
import type { PolicyFiring } from './policy/policy.evaluate';

export type NodeStatus =
  'pending' | 'running' | 'retry_wait' | 'awaiting_hitl' | 'completed' | 'failed' | 'skipped';

export interface NodeState {
  status: NodeStatus;
  attempt: number;
  output?: Record<string, unknown>;
  /** What the agent reported spending on the completed attempt. */
  usage?: { tokens?: number; costCents?: number };
  error?: { code: string; message: string; retryable: boolean };
  /** When a failed attempt may be retried (ISO), for `retry_wait`. */
  retryAt?: string;
  startedAt?: string;
  /** The capability serving the current attempt (the plan's, or the fallback's). */
  capabilityId?: string;
  /** Set once the node moved to a fallback capability: the plan's own capability is exhausted. */
  fallbackCapabilityId?: string;
  /** The first attempt made on the fallback capability (retries count from there). */
  fallbackFromAttempt?: number;
  /** Set when an operator was asked for this node's output (human capability or fallback node). */
  hitlRequestId?: string;
  /** The latest output errors recorded against this node: what its next attempt is told to fix. */
  feedback?: NodeFeedback;
  /** Set when the node was reopened (an upstream node is being repaired): its retries count from this attempt. */
  reopenedFrom?: number;
}

/** One output error as an agent is told about it: where, which rule, and what is wrong. */
export interface FeedbackError {
  path: string;
  keyword?: string;
  message: string;
}

/** The errors of one attempt of a node (node output contract, bindings, constraints or final output). */
export interface NodeFeedback {
  attempt: number;
  errors: FeedbackError[];
}

interface HitlRequestBase {
  requestId: string;
  mode: 'approval' | 'node_output';
  nodeId?: string;
  policyId?: string;
  action?: HitlAction;
}

/** What an operator decided on a HITL request. */
export interface HitlDecision {
  decision: 'approve' | 'reject';
  note?: string;
  /** For a node-output request: the node's output (checked against its contract when it was given). */
  payload?: unknown;
}

/**
 * One HITL request as the run remembers it (docs/lifecycle.md):
 * - `pending`: waits for an operator; the run cannot complete while any request is pending;
 * - `decided`: decided while the run was paused: recorded, it takes effect when the run resumes;
 * - `resolved`: in effect since the event `effectiveAt` (its `hitl_resolved`, or the `run_resumed`
 *   that applied a decision made during a pause); the executor runs the follow-up on that event;
 * - `closed`: the run ended (failed or cancelled) while it was `pending` or `decided`, or it was
 *   withdrawn while `pending` (`hitl_withdrawn`): no decision will ever take effect.
 */
export type HitlRequestState = HitlRequestBase &
  (
    | { status: 'pending' }
    | ({ status: 'decided' } & HitlDecision)
    | ({
        status: 'resolved';
        effectiveAt: string;
        /** Its follow-up was appended with the event that made it take effect: nothing is left to do. */
        followedUp?: true;
      } & HitlDecision)
    | { status: 'closed' }
  );

/** Why and since when a run is paused. HITL requests keep their own state through a pause. */
export interface PauseState {
  reason: string;
  policyId?: string;
  at: string;
  /** The `run_paused` event's id: which pause this is, so a resume resumes the pause it saw. */
  eventId: string;
}

/**
 * A replan asked for while HITL requests were pending (`replan_deferred`): asked for real
 * (`plan_requested`) once no request is pending and the run is not paused.
 */
export interface DeferredReplan {
  trigger: Record<string, unknown>;
  waitingFor: string[];
  policyId?: string;
  nodeId?: string;
}

/** What one plan request is, whatever its stage. */
interface PlanRequestBase {
  /** The planning attempt (`plan_requested.attempt`), counted over the whole run. */
  attempt: number;
  /** Why the planner was asked: the first plan, a refused draft asked again, or a replan. */
  reason: EventPayload<'plan_requested'>['reason'];
  /** The `plan_requested` that asked: the planner drafts for this request only. */
  requestEventId: string;
}

/** The planner owes a draft for the request (or its error). */
export interface PlanRequestAsked extends PlanRequestBase {
  stage: 'asked';
}

/** The planner drafted; the validator owes its verdict on that draft. */
export interface PlanRequestDrafted extends PlanRequestBase {
  stage: 'drafted';
  /** The `plan_drafted` that answered the request: the validator proves this draft only. */
  draftEventId: string;
}

/**
 * Where the plan request in flight stands: `plan_requested` asks, `plan_drafted` moves it to
 * `drafted`; a `plan_rejected` (the validator's, or the planner's when it found no plan for a replan a
 * node's failure asked for) or an accepted plan ends it. One field, so a run never has a request
 * asked and a draft waiting at once, and every reader sees the same stage.
 */
export type PlanRequestState = PlanRequestAsked | PlanRequestDrafted;

/** What every started run knows. */
export interface RunCore {
  runId: string;
  correlationId: string;
  /**
   * The run's trace (W3C `traceparent` of the gateway's `run.stream` span, from `start`): every event
   * of the run carries it, so work resumed after a HITL wait or a restart joins the same trace.
   */
  traceparent?: string;
  envelope: TaskEnvelope;
  owner: { principal: string; role: string };
  version: number;
  planAttempt: number;
  planVersion: number;
  nodes: Record<string, NodeState>;
  lastDiagnostics?: DiagnosticsBundle;
  satisfactionScore?: number;
  /** The plan request in flight (the first plan, or a replan), and where it stands: see {@link PlanRequestState}. */
  planRequest?: PlanRequestState;
  startedAt: string;
  /** Policy firings so far, keyed `<policyId>|<trigger key>`: a firing happens once per key. */
  policyFirings: Record<string, number>;
  /**
   * What node events made fire and no `policy_triggered` has recorded yet, in stream order: the
   * fold's verdict on each (see `withNodeVerdict`). Absent when nothing is owed.
   */
  dueFirings?: PolicyFiring[];
  hitl: Record<string, HitlRequestState>;
  hitlCount: number;
  replans: number;
}

/**
 * The latest replan of the current plan version: `asked` (the planner and validator are on it), or
 * `refused` (no valid plan came of it: the run keeps its plan, and a node whose failure asked for
 * it goes on down its repair chain instead of asking again).
 */
export interface ReplanState {
  trigger: Record<string, unknown>;
  outcome: 'asked' | 'refused';
}

/** A run with an accepted plan, still going. */
export interface PlannedCore extends RunCore {
  plan: PlanGraph;
  /** See {@link ReplanState}; absent until a replan of this plan version is asked. */
  replan?: ReplanState;
  /** A replan waiting for pending HITL decisions (see {@link DeferredReplan}). */
  deferredReplan?: DeferredReplan;
}

/**
 * No plan accepted yet: the planner and the validator are working. Nothing else can happen.
 * `planRequest` stays optional: the fold passes through a planning run with none between `start`
 * and its `plan_requested`, and between a `plan_rejected` and the `plan_requested` or `run_failed`
 * the validator appends with it. Both pairs are one append, so a stored planning run always has one.
 */
export type PlanningRun = RunCore & { status: 'planning'; plan?: undefined };
/** Running its plan: no HITL request is pending (a replan may be in flight). */
export type RunningRun = PlannedCore & { status: 'running' };
/** Waiting for operators: `waitingOn` are the pending requests (never empty); nothing new starts. */
export type AwaitingHitlRun = PlannedCore & { status: 'awaiting_hitl'; waitingOn: string[] };
/** Paused until `run.resume`: pending requests stay pending, decisions made meanwhile wait for the resume. */
export type PausedRun = PlannedCore & { status: 'paused'; pause: PauseState };
export type CompletedRun = RunCore & {
  status: 'completed';
  plan: PlanGraph;
  output: Record<string, unknown>;
};
export type FailedRun = RunCore & {
  status: 'failed';
  plan?: PlanGraph;
  failure: { code: string; reason: string };
};
export type CancelledRun = RunCore & {
  status: 'cancelled';
  plan?: PlanGraph;
  cancellation: { by: string; reason?: string };
};

/** Run state is a union keyed on status (Emmett style): each status carries exactly its fields. */
export type RunState =
  | { status: 'none' }
  | PlanningRun
  | RunningRun
  | AwaitingHitlRun
  | PausedRun
  | CompletedRun
  | FailedRun
  | CancelledRun;

export type ActiveRun = PlanningRun | PlannedRun;
/** A run going on an accepted plan: running, waiting for operators, or paused. */
export type PlannedRun = RunningRun | AwaitingHitlRun | PausedRun;
export type StartedRun = Exclude<RunState, { status: 'none' }>;

export const initialRunState = (): RunState => ({ status: 'none' });

export { payloadOf } from '@flex/event-store';

export function isTerminal(state: RunState): state is CompletedRun | FailedRun | CancelledRun {
  return state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled';
}

/** A run with an accepted plan that has not ended. */
export function isPlanned(state: RunState): state is PlannedRun {
  return state.status === 'running' || state.status === 'awaiting_hitl' || state.status === 'paused';
}

/** The HITL requests still waiting for an operator, in the order they were raised. */
export function pendingHitlRequests(state: RunState): string[] {
  if (state.status === 'none') return [];
  return Object.values(state.hitl)
    .filter((h) => h.status === 'pending')
    .map((h) => h.requestId);
}

/** A replan asked of the planner and not yet answered with an accepted plan (or given up). */
export function replanInFlight(state: RunState): boolean {
  return isPlanned(state) && state.planRequest !== undefined;
}

/** The request the planner owes a draft for, if `requestEventId` is it (else a stale or repeated delivery). */
export function askedPlanRequest(state: RunState, requestEventId: string): PlanRequestAsked | undefined {
  if (state.status === 'none' || isTerminal(state)) return undefined;
  const request = state.planRequest;
  return request?.stage === 'asked' && request.requestEventId === requestEventId ? request : undefined;
}

/** The request whose draft the validator owes a verdict on, if `draftEventId` is that draft. */
export function draftedPlanRequest(state: RunState, draftEventId: string): PlanRequestDrafted | undefined {
  if (state.status === 'none' || isTerminal(state)) return undefined;
  const request = state.planRequest;
  return request?.stage === 'drafted' && request.draftEventId === draftEventId ? request : undefined;
}

/**
 * The replan in flight was asked by a node's failure (docs/lifecycle.md, rule 6). When it finds no
 * valid plan (every draft refused, or the planner finds none) the run keeps its plan and the node goes
 * on down its repair chain; any other replan that finds no plan fails the run.
 */
export function replanForNodeFailure(state: RunState): boolean {
  return isPlanned(state) && state.replan?.outcome === 'asked' && state.replan.trigger.kind === 'node_failed';
}

/** Metadata for events a handler appends in reaction to `cause` on this run. */
export function runMetadata(
  state: RunState,
  cause: { id: string; metadata: { correlationId: string; traceparent?: string } },
  producer: string,
) {
  return {
    correlationId: state.status === 'none' ? cause.metadata.correlationId : state.correlationId,
    causationId: cause.id,
    planVersion: state.status === 'none' ? undefined : state.planVersion || undefined,
    traceparent: state.status === 'none' ? cause.metadata.traceparent : runTraceparent(state, cause),
    producer,
  };
}

/** The run's trace context; a cause's own for a run started before runs kept theirs. */
function runTraceparent(state: RunCore, cause: { metadata: { traceparent?: string } }): string | undefined {
  return state.traceparent ?? cause.metadata.traceparent;
}

/** The normalized policy keys a plan request reports (spec 003 §10.0.1 `plan_requested`). */
export function policyKeys(envelope: TaskEnvelope): string[] {
  const planner = envelope.policies?.planner ?? {};
  const keys = Object.entries(planner).flatMap(([group, value]) =>
    value && typeof value === 'object'
      ? Object.keys(value).map((k) => `planner.${group}.${k}`)
      : [`planner.${group}`],
  );
  for (const policy of envelope.policies?.runtime ?? []) keys.push(`runtime.${policy.id}`);
  return keys.sort();
}
