import type {
  Action,
  DecisionContract,
  DiagnosticsBundle,
  EventPayload,
  PlanGraph,
  TaskEnvelope,
} from '@flex/contracts';
import type { Frame } from '../api/types';
import { nodeEvent, validationError } from './node-fold';

/**
 * What the run page shows, folded from the run's event stream as it arrives. A display fold, not
 * the run's lifecycle: where the read model says otherwise (`GET runs/:id`), the page believes the
 * read model (see `shownNodeStatus`).
 */
export interface RunView {
  runId?: string;
  envelope?: TaskEnvelope;
  plans: PlanVersion[];
  rejections: PlanRejection[];
  nodes: Record<string, NodeView>;
  policies: PolicyDecision[];
  hitl: Record<string, HitlView>;
  /** What the stream alone says of the run's status (the read model's is preferred when known). */
  status: string;
  output?: Record<string, unknown>;
  satisfaction?: { score?: number; observed?: number };
  failure?: { code: string; reason: string; diagnostics?: DiagnosticsBundle };
  cancelled?: { by: string; reason?: string };
  /** Why the run is paused, and by a policy or by an operator (`by`: the operator's id). */
  paused?: { reason: string; policyId?: string; by?: string };
  logs: Array<{ at: string; level: string; message: string; nodeId?: string }>;
  lastPosition: number;
  ended: boolean;
}

export interface PlanVersion {
  version: number;
  plan: PlanGraph;
  diagnostics: DiagnosticsBundle;
  planHash: string;
  at: string;
  previousVersion?: number;
  trigger?: Record<string, unknown>;
  /** Each node's state when the next version replaced this one (what the "before" graph shows). */
  finalStatuses?: Record<string, string>;
}

export interface PlanRejection {
  attempt: number;
  at: string;
  diagnostics: DiagnosticsBundle;
  source: 'validator' | 'planner';
}

export interface AttemptView {
  attempt: number;
  capabilityId?: string;
  startedAt?: string;
  durationMs?: number;
  output?: Record<string, unknown>;
  error?: { code: string; message: string; retryable: boolean };
  willRetry?: boolean;
  validationErrors: ValidationErrorView[];
}

export interface ValidationErrorView {
  scope: string;
  path: string;
  message: string;
  keyword?: string;
  facet?: string;
}

export interface NodeView {
  status: string;
  attempts: AttemptView[];
  /** The stream position of the last event about this node. */
  position: number;
}

export interface PolicyDecision {
  position: number;
  at: string;
  policyId: string;
  nodeId?: string;
  trigger: Record<string, unknown>;
  /** The action the policy asked for (absent only from a payload that names none). */
  action?: Action;
  decision: DecisionContract;
}

export interface HitlView {
  requestId: string;
  at: string;
  nodeId?: string;
  policyId?: string;
  rationale: string;
  mode: 'approval' | 'node_output';
  artifact?: unknown;
  contractSummary?: Record<string, unknown>;
  status: 'pending' | 'approved' | 'rejected' | 'closed';
  note?: string;
  operator?: string;
}

export const emptyRunView = (): RunView => ({
  plans: [],
  rejections: [],
  nodes: {},
  policies: [],
  hitl: {},
  status: 'planning',
  logs: [],
  lastPosition: 0,
  ended: false,
});

/** The view after one more frame. Frames at or before the last one seen change nothing (a reconnect may repeat). */
export function foldFrame(view: RunView, frame: Frame): RunView {
  if (frame.position && frame.position <= view.lastPosition) return view;
  const next = { ...view, lastPosition: frame.position || view.lastPosition, runId: frame.runId };
  return applyFrame(next, frame);
}

function applyFrame(view: RunView, frame: Frame): RunView {
  if (!frame.payload) return view;
  switch (frame.type) {
    case 'start':
      return { ...view, envelope: frame.payload.envelope };
    case 'plan_requested':
      return view.ended ? view : { ...view, status: view.status === 'paused' ? 'paused' : 'planning' };
    case 'plan_rejected':
      return { ...view, rejections: [...view.rejections, rejectionOf(frame.payload, frame.timestamp)] };
    case 'plan_generated':
    case 'plan_updated':
      return planAccepted(view, frame);
    case 'node_start':
    case 'node_complete':
    case 'node_error':
      return nodeEvent(view, frame);
    case 'validation_error':
      return validationError(view, frame.payload, frame.position);
    case 'policy_triggered':
      return { ...view, policies: [...view.policies, decisionOf(frame.payload, frame)] };
    case 'hitl_request':
    case 'hitl_resolved':
      return hitlEvent(view, frame);
    case 'hitl_withdrawn':
      return hitlWithdrawn(view, frame.payload);
    case 'run_paused':
      return {
        ...view,
        status: 'paused',
        paused: {
          reason: frame.payload.reason,
          policyId: frame.payload.policyId,
          by: frame.payload.pausedBy,
        },
      };
    case 'run_resumed':
      return { ...view, status: pendingHitl(view) ? 'awaiting_hitl' : 'running', paused: undefined };
    case 'complete':
      return {
        ...view,
        status: 'completed',
        ended: true,
        output: frame.payload.output,
        satisfaction: {
          score: frame.payload.satisfactionScore,
          observed: frame.payload.observedSatisfaction,
        },
      };
    case 'run_failed':
      return { ...view, status: 'failed', ended: true, failure: failureOf(frame.payload) };
    case 'run_cancelled':
      return cancelled(view, frame.payload);
    case 'log':
      return {
        ...view,
        logs: [...view.logs, { at: frame.timestamp, ...frame.payload, nodeId: frame.nodeId }],
      };
    default:
      return view;
  }
}

function rejectionOf(payload: EventPayload<'plan_rejected'>, at: string): PlanRejection {
  return {
    attempt: payload.attempt,
    at,
    diagnostics: payload.diagnostics,
    source: payload.source ?? 'validator',
  };
}

function failureOf(payload: EventPayload<'run_failed'>): RunView['failure'] {
  return { code: payload.code, reason: payload.reason, diagnostics: payload.diagnostics };
}

function planAccepted(
  view: RunView,
  frame: Extract<Frame, { type: 'plan_generated' | 'plan_updated' }>,
): RunView {
  const p = frame.payload;
  if (!p) return view;
  const version: PlanVersion =
    frame.type === 'plan_generated'
      ? {
          version: p.plan.planVersion,
          plan: p.plan,
          diagnostics: p.diagnostics,
          planHash: p.planHash,
          at: frame.timestamp,
        }
      : {
          version: p.plan.planVersion,
          plan: p.plan,
          diagnostics: p.diagnostics,
          planHash: p.planHash,
          at: frame.timestamp,
          previousVersion: 'previousVersion' in p ? p.previousVersion : undefined,
          trigger: 'trigger' in p ? p.trigger : undefined,
        };
  // Nodes a new version drops keep what they did (a failed node stays failed in the version before).
  const nodes: Record<string, NodeView> = { ...view.nodes };
  for (const node of p.plan.nodes)
    nodes[node.id] ??= { status: 'pending', attempts: [], position: frame.position };
  const status =
    view.status === 'paused' || view.ended ? view.status : pendingHitl(view) ? 'awaiting_hitl' : 'running';
  const finalStatuses = Object.fromEntries(Object.entries(view.nodes).map(([id, n]) => [id, n.status]));
  const earlier = view.plans
    .filter((v) => v.version !== version.version)
    .map((v, i, all) => (i === all.length - 1 ? { ...v, finalStatuses } : v));
  return { ...view, status, nodes, plans: [...earlier, version] };
}

function decisionOf(p: EventPayload<'policy_triggered'>, frame: Frame): PolicyDecision {
  // `actionDetails` is the spec's name for what was stored as `action` (issue 14): read either.
  const named = p as { action?: Action; actionDetails?: Action };
  const action = named.actionDetails ?? named.action;
  return {
    position: frame.position,
    at: frame.timestamp,
    policyId: p.policyId,
    nodeId: p.nodeId,
    trigger: p.trigger,
    action,
    decision: p.decision,
  };
}

function hitlEvent(
  view: RunView,
  frame: Extract<Frame, { type: 'hitl_request' | 'hitl_resolved' }>,
): RunView {
  const p = frame.payload;
  if (!p) return view;
  if (frame.type === 'hitl_request' && 'rationale' in p) {
    const request: HitlView = {
      requestId: p.requestId,
      at: frame.timestamp,
      nodeId: p.nodeId,
      policyId: p.policyId,
      rationale: p.rationale,
      mode: p.mode ?? 'approval',
      artifact: p.artifact,
      contractSummary: p.contractSummary,
      status: 'pending',
    };
    const nodes =
      p.nodeId && view.nodes[p.nodeId]
        ? {
            ...view.nodes,
            [p.nodeId]: { ...view.nodes[p.nodeId], status: 'awaiting_hitl', position: frame.position },
          }
        : view.nodes;
    const status = view.status === 'paused' ? 'paused' : 'awaiting_hitl';
    return { ...view, status, nodes, hitl: { ...view.hitl, [p.requestId]: request } };
  }
  if (frame.type === 'hitl_resolved' && 'decision' in p) {
    const known = view.hitl[p.requestId];
    if (!known) return view;
    const resolved: HitlView = {
      ...known,
      status: p.decision === 'approve' ? 'approved' : 'rejected',
      note: p.note,
      operator: p.operator,
    };
    const hitl = { ...view.hitl, [p.requestId]: resolved };
    const status =
      view.status === 'awaiting_hitl' && !pendingHitl({ ...view, hitl }) ? 'running' : view.status;
    return { ...view, hitl, status };
  }
  return view;
}

/** A request withdrawn (the unreachable agent it stood in for is back): closed, like a cancelled run's. */
function hitlWithdrawn(view: RunView, p: EventPayload<'hitl_withdrawn'> | undefined): RunView {
  const known = p ? view.hitl[p.requestId] : undefined;
  if (!p || !known) return view;
  const hitl = { ...view.hitl, [p.requestId]: { ...known, status: 'closed' as const } };
  const status = view.status === 'awaiting_hitl' && !pendingHitl({ ...view, hitl }) ? 'running' : view.status;
  return { ...view, hitl, status };
}

function cancelled(view: RunView, p: EventPayload<'run_cancelled'>): RunView {
  const hitl = { ...view.hitl };
  for (const id of p.closedHitlRequests) if (hitl[id]) hitl[id] = { ...hitl[id], status: 'closed' };
  return {
    ...view,
    hitl,
    status: 'cancelled',
    ended: true,
    cancelled: { by: p.cancelledBy, reason: p.reason },
  };
}

const pendingHitl = (view: RunView): boolean => Object.values(view.hitl).some((h) => h.status === 'pending');

/** The current plan version: the newest accepted one. */
export const currentPlan = (view: RunView): PlanVersion | undefined => view.plans.at(-1);
