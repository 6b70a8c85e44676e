import { contentHash, type PlanGraph } from '@flex/contracts';

/** Run events as the services write them, for specs of the read models. */
export type Given = { type: string; payload: unknown };

export const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const registry = { hash: contentHash([]), capabilities: [] };
const diagnostics = { status: 'accepted', satisfactionScore: 0.9, failures: [], warnings: [], infos: [] };
const metadata = { plannerId: 't', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) };
const node = (id: string): PlanGraph['nodes'][number] => ({
  id,
  kind: 'execution',
  label: id,
  capabilityId: `C.${id}`,
  inputFacets: [],
  outputFacets: [`${id}Out`],
});
const planOf = (version: number, ids: string[]): PlanGraph => ({
  planVersion: version,
  nodes: ids.map(node),
  edges: [],
  metadata: { ...metadata, determinism: 'full' as const },
});

export const start = (runId: string, principal = 'tok_client'): Given => ({
  type: 'start',
  payload: {
    runId,
    envelope: {
      objective: `objective of ${runId}`,
      inputs: {},
      outputContract: { schema: { type: 'object' } },
    },
    normalization: [],
    owner: { principal, role: 'client' },
  },
});
export const requested = (attempt: number, reason = 'initial'): Given => ({
  type: 'plan_requested',
  payload: { attempt, reason, policyKeys: [] },
});
export const generated = (ids: string[]): Given => ({
  type: 'plan_generated',
  payload: {
    planVersion: 1,
    plan: planOf(1, ids),
    nodes: [],
    planHash: 'h'.repeat(64),
    metadata,
    registry,
    diagnostics,
  },
});
export const updated = (version: number, ids: string[]): Given => ({
  type: 'plan_updated',
  payload: {
    previousVersion: version - 1,
    version,
    plan: planOf(version, ids),
    nodes: [],
    trigger: { kind: 'manual' },
    planHash: 'h'.repeat(64),
    registry,
    diagnostics: { ...diagnostics, satisfactionScore: 0.7 },
  },
});
/** A draft: its payload is the one the runs projection leaves unread. */
export const drafted = (attempt: number, ids: string[]): Given => ({
  type: 'plan_drafted',
  payload: { attempt, plan: planOf(1, ids), planHash: 'd'.repeat(64), registry },
});
export const ask = (requestId: string, nodeId?: string): Given => ({
  type: 'hitl_request',
  payload: nodeId
    ? { requestId, nodeId, rationale: `give ${nodeId}`, mode: 'node_output' }
    : { requestId, policyId: 'review', rationale: `look at ${requestId}`, mode: 'approval' },
});
export const decide = (requestId: string, decision: 'approve' | 'reject'): Given => ({
  type: 'hitl_resolved',
  payload: { requestId, decision, operator: 'op' },
});
export const nodeStart = (nodeId: string, attempt = 1): Given => ({
  type: 'node_start',
  payload: {
    nodeId,
    capabilityId: `C.${nodeId}`,
    kind: 'execution',
    attempt,
    idempotencyKey: `${nodeId}:${attempt}`,
  },
});
export const nodeDone = (nodeId: string, attempt = 1): Given => ({
  type: 'node_complete',
  payload: { nodeId, attempt, output: { [`${nodeId}Out`]: `out of ${nodeId}` }, durationMs: 3 },
});
export const nodeFailed = (nodeId: string, attempt: number, willRetry: boolean): Given => ({
  type: 'node_error',
  payload: {
    nodeId,
    attempt,
    error: { code: 'agent_error', message: 'boom', retryable: willRetry },
    willRetry,
  },
});
export const paused: Given = { type: 'run_paused', payload: { reason: 'hold', snapshot: {} } };
export const resumed: Given = { type: 'run_resumed', payload: { expectedPlanVersion: 1, resumedBy: 'op' } };
export const failed: Given = { type: 'run_failed', payload: { code: 'agent_failed', reason: 'gave up' } };
export const completed: Given = {
  type: 'complete',
  payload: { output: { a: 1 }, planVersion: 2, observedSatisfaction: 0.8 },
};
