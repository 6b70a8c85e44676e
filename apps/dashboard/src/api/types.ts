import type {
  CapabilityRegistration,
  DiagnosticsBundle,
  FacetDefinition,
  FlexEventFrame,
  PlanGraph,
  ValidationIssue,
} from '@flex/contracts';

/**
 * What the dashboard reads from the API. The shapes are the gateway's answers as the dashboard
 * uses them; fields the API may add later (the spec's §10.1 run fields) are optional here.
 */

/** The statuses a run can have, in the order the runs list offers them as filters. */
export const RUN_STATUSES = [
  'planning',
  'running',
  'awaiting_hitl',
  'paused',
  'completed',
  'failed',
  'cancelled',
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunFailure {
  code: string;
  reason: string;
  diagnostics?: DiagnosticsBundle;
}

export interface RunSummary {
  runId: string;
  status: string;
  objective: string;
  planVersion: number;
  satisfactionScore: number | null;
  observedSatisfaction?: number | null;
  failure?: RunFailure | null;
  createdAt: string;
  updatedAt: string;
  lastEventType?: string;
  /** The store position of the last event the read model applied to this run. */
  lastPosition?: number;
  owner?: string;
  schemaHash?: string;
  pendingNodeIds?: string[];
}

export interface PlanVersionView {
  version: number;
  planHash: string;
  status: string;
  satisfactionScore: number | null;
  diagnostics: DiagnosticsBundle | null;
  registryHash: string | null;
  createdAt: string;
  plan: PlanGraph;
  pendingNodeIds?: string[];
}

export interface NodeRow {
  nodeId: string;
  kind: string;
  capabilityId: string | null;
  status: string;
  attempt: number;
  output: unknown;
  error: unknown;
  updatedAt: string;
}

export interface HitlRow {
  requestId: string;
  nodeId: string | null;
  status: string;
  rationale: string | null;
  decision: string | null;
  createdAt: string;
  resolvedAt: string | null;
}

export interface RunDetail {
  run: RunSummary;
  output: { output: Record<string, unknown>; planVersion: number; completedAt: string } | null;
  planVersions: PlanVersionView[];
  nodes: NodeRow[];
  hitlRequests: HitlRow[];
  latestSnapshot?: unknown;
}

/** One page of runs; `next` is what asks for the page after it (absent on the last page). */
export interface RunsPage {
  runs: RunSummary[];
  next?: string;
}

export interface CapabilityView {
  registration: CapabilityRegistration;
  status: 'active' | 'inactive' | 'deregistered';
  activeInstances: number;
  registeredAt: string;
  lastSeenAt: string;
}

/** A frame of a run's event stream, with its store position (the SSE `id:`). */
export type Frame = FlexEventFrame & { position: number };

export interface HitlResolution {
  runId: string;
  requestId: string;
  decision: 'approve' | 'reject';
  note?: string;
  payload?: unknown;
}

export interface HitlResolved {
  ok: true;
  takesEffect: 'now' | 'on_resume';
  position?: number;
}

export interface SandboxTemplate {
  id: string;
  name: string;
  description: string;
  source: string;
  envelope: Record<string, unknown>;
}

export interface SandboxMetadata {
  facets: FacetDefinition[];
  capabilities: { active: CapabilityView[]; all: CapabilityView[] };
  capabilityCatalog: string;
  templates: SandboxTemplate[];
  model: { configured: boolean; name?: string };
}

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

/** The conversational builder's answer to a turn: the draft after the reply's patch, re-validated. */
export interface ConversationTurn {
  conversationId: string;
  mode: 'llm' | 'guided';
  draft: unknown;
  validation: { valid: boolean; issues: ValidationIssue[] };
  missing: Array<{ path: string; message: string }>;
  reply: { message: string; patch: PatchOperation[]; applied: boolean; error?: string };
  fallbackReason?: string;
}
