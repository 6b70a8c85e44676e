import type { HitlAction, DiagnosticsBundle, EventPayload, FlexEventType, PlanGraph, TaskEnvelope } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';

export type NodeStatus = 'pending' | 'running' | 'retry_wait' | 'awaiting_hitl' | 'completed' | 'failed' | 'skipped';

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

/** One HITL request as the run remembers it. */
export interface HitlRequestState {
  requestId: string;
  mode: 'approval' | 'node_output';
  nodeId?: string;
  policyId?: string;
  action?: HitlAction;
  status: 'pending' | 'resolved';
  decision?: 'approve' | 'reject';
}

/** What a `run_paused` snapshot and a resume need: where the run was before it paused. */
export interface PauseState {
  reason: string;
  policyId?: string;
  from: 'running' | 'awaiting_hitl';
  at: string;
}

interface RunCore {
  runId: string;
  correlationId: string;
  envelope: TaskEnvelope;
  owner: { principal: string; role: string };
  version: number;
  planAttempt: number;
  planVersion: number;
  plan?: PlanGraph;
  nodes: Record<string, NodeState>;
  lastDiagnostics?: DiagnosticsBundle;
  satisfactionScore?: number;
  /** The planner request waiting for a draft, if any. */
  pendingPlanRequest?: { attempt: number; reason: string; eventId: string };
  /** A draft waiting for the validator, if any. */
  pendingDraft?: { attempt: number; eventId: string };
  startedAt: string;
  /** Policy firings so far, keyed `<policyId>|<trigger key>`: a firing happens once per key. */
  policyFirings: Record<string, number>;
  hitl: Record<string, HitlRequestState>;
  hitlCount: number;
  replans: number;
  paused?: PauseState;
}

/** Run state is a union keyed on status (Emmett style). */
export type RunState =
  | { status: 'none' }
  | (RunCore & { status: 'planning' | 'running' | 'awaiting_hitl' | 'paused' })
  | (RunCore & { status: 'completed'; output: Record<string, unknown> })
  | (RunCore & { status: 'failed'; failure: { code: string; reason: string } })
  | (RunCore & { status: 'cancelled'; cancellation: { by: string; reason?: string } });

export type ActiveRun = Extract<RunState, { status: 'planning' | 'running' | 'awaiting_hitl' | 'paused' }>;
export type StartedRun = Exclude<RunState, { status: 'none' }>;

export const initialRunState = (): RunState => ({ status: 'none' });

export function payloadOf<T extends FlexEventType>(event: StoredEvent, _type: T): EventPayload<T> {
  return event.payload as EventPayload<T>;
}

export function isTerminal(state: RunState): boolean {
  return state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled';
}

/** Metadata for events a handler appends in reaction to `cause` on this run. */
export function runMetadata(state: RunState, cause: { id: string; metadata: { correlationId: string; traceparent?: string } }, producer: string) {
  return {
    correlationId: state.status === 'none' ? cause.metadata.correlationId : state.correlationId,
    causationId: cause.id,
    planVersion: state.status === 'none' ? undefined : state.planVersion || undefined,
    traceparent: cause.metadata.traceparent,
    producer,
  };
}

/** The normalized policy keys a plan request reports (spec 003 §10.0.1 `plan_requested`). */
export function policyKeys(envelope: TaskEnvelope): string[] {
  const planner = envelope.policies?.planner ?? {};
  const keys = Object.entries(planner).flatMap(([group, value]) =>
    value && typeof value === 'object' ? Object.keys(value).map((k) => `planner.${group}.${k}`) : [`planner.${group}`],
  );
  for (const policy of envelope.policies?.runtime ?? []) keys.push(`runtime.${policy.id}`);
  return keys.sort();
}
