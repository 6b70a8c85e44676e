import type { DiagnosticsBundle, EventPayload, FlexEventType, PlanGraph, TaskEnvelope } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';

export type NodeStatus = 'pending' | 'running' | 'retry_wait' | 'completed' | 'failed' | 'skipped';

export interface NodeState {
  status: NodeStatus;
  attempt: number;
  output?: Record<string, unknown>;
  error?: { code: string; message: string; retryable: boolean };
  /** When a failed attempt may be retried (ISO), for `retry_wait`. */
  retryAt?: string;
  startedAt?: string;
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
}

/** Run state is a union keyed on status (Emmett style). */
export type RunState =
  | { status: 'none' }
  | (RunCore & { status: 'planning' | 'running' })
  | (RunCore & { status: 'completed'; output: Record<string, unknown> })
  | (RunCore & { status: 'failed'; failure: { code: string; reason: string } });

export type ActiveRun = Extract<RunState, { status: 'planning' | 'running' }>;
export type StartedRun = Exclude<RunState, { status: 'none' }>;

export const initialRunState = (): RunState => ({ status: 'none' });

export function payloadOf<T extends FlexEventType>(event: StoredEvent, _type: T): EventPayload<T> {
  return event.payload as EventPayload<T>;
}

export function isTerminal(state: RunState): boolean {
  return state.status === 'completed' || state.status === 'failed';
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
