import type {
  CapabilityRegistration,
  DeterminismMode,
  DiagnosticsBundle,
  PlanGraph,
  PlannerError,
  PlannerOutput,
  TaskEnvelope,
} from '@flex/contracts';

/** What a replan knows about the run so far (DESIGN §5.6): the current graph and the work already done. */
export interface ReplanContext {
  trigger: Record<string, unknown>;
  previousVersion: number;
  previousPlan: PlanGraph;
  /** Completed nodes and their validated outputs, by node id. */
  completed: Record<string, Record<string, unknown>>;
}

/** Everything a planner may read: the normalized envelope, the live registry and the feedback so far. */
export interface PlannerRequest {
  envelope: TaskEnvelope;
  capabilities: readonly CapabilityRegistration[];
  planVersion: number;
  attempt: number;
  /** The validator's diagnostics of the previous attempt, when it was rejected. */
  diagnostics?: DiagnosticsBundle;
  replan?: ReplanContext;
}

/**
 * The planner contract of spec 004: an id, a semantic version, a determinism mode, and `plan()`,
 * which returns a PlannerOutput or a structured PlannerError and never throws across the boundary.
 */
export interface Planner {
  readonly id: string;
  readonly version: string;
  readonly mode: DeterminismMode;
  plan(request: PlannerRequest): Promise<PlannerOutput | PlannerError>;
}

/** True when a planner answered with an error value. */
export function isPlannerError(result: PlannerOutput | PlannerError): result is PlannerError {
  return 'code' in result && !('plan' in result);
}

/** A PlannerError value; planners build theirs with this. */
export function plannerError(
  code: PlannerError['code'],
  message: string,
  details: Record<string, unknown> = {},
  retryable = false,
): PlannerError {
  return { code, message: message.slice(0, 4_000), retryable, details };
}

/** The PlannerOutput of a plan: `deterministic` follows the plan's determinism mode. */
export function plannerOutput(plan: PlanGraph, metadata: Record<string, unknown> = {}): PlannerOutput {
  return { plan, metadata, deterministic: plan.metadata.determinism === 'full' };
}
