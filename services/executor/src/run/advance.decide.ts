import type { CapabilityRegistration, PlanNode } from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import {
  decideAction, DEFAULT_MAX_HITL_REQUESTS, mainPathComplete, nextHitlRequestId, readyNodes, upstreamOf, type NodeState, type RunLimits, type RunState, type StartedRun,
} from '@flex/run-model';
import { composeFinalOutput } from './output-composer';

export interface AdvanceDecision {
  events: DecidedEvent[];
  /** A retry (or a timer) is waiting: look again after this many ms. */
  wakeInMs?: number;
  /** A node failed for good and may move to a fallback capability: decide again with `fallbacks`. */
  needsFallbacks?: boolean;
}

export interface AdvanceOptions {
  /** Active registrations (registry snapshot), when the adapter fetched them. */
  fallbacks?: readonly CapabilityRegistration[];
  limits?: Partial<RunLimits>;
}

/**
 * Move a running run forward (pure): start due retries; take a node that failed for good down its
 * fallback chain (fallback capability, then the plan's HITL fallback node, then fail the run); start
 * ready nodes (virtual nodes complete at once); compose the final output when the main path is
 * done. Nothing starts while a replan is pending, the run is paused or waits for an operator.
 */
export function decideAdvance(state: RunState, now: Date, options: AdvanceOptions = {}): AdvanceDecision {
  if (state.status !== 'running' || !state.plan) return { events: [] };
  if (state.pendingPlanRequest || state.pendingDraft) return { events: [] };
  const failed = Object.entries(state.nodes).find(([, n]) => n.status === 'failed');
  if (failed) return fallbackChain(state, failed[0], failed[1], options);
  const events: DecidedEvent[] = [];
  let wakeInMs: number | undefined;
  for (const [nodeId, node] of Object.entries(state.nodes)) {
    if (node.status !== 'retry_wait') continue;
    const wait = Date.parse(node.retryAt ?? '') - now.getTime();
    if (wait <= 0) events.push(nodeStart(state.plan.nodes.find((n) => n.id === nodeId) as PlanNode, node.attempt + 1, state, node.capabilityId));
    else wakeInMs = Math.min(wakeInMs ?? wait, wait);
  }
  for (const node of readyNodes(state.plan, state.nodes)) {
    events.push(nodeStart(node, 1, state));
    if (!node.capabilityId) events.push(virtualCompletion(state, node));
  }
  const busy = Object.values(state.nodes).some((n) => n.status !== 'completed' && n.status !== 'pending');
  if (events.length === 0 && !busy && mainPathComplete(state.plan, state.nodes)) return { events: finish(state) };
  return { events, wakeInMs };
}

/**
 * Retries are spent: another capability producing the node's outputs that accepts its inputs; else,
 * when some other active capability produces those outputs from different inputs and replans remain,
 * a replan that steers away from what failed (DESIGN §5.6: replan from a failure); then a human
 * through the plan's fallback node; then the end.
 */
function fallbackChain(state: StartedRun, nodeId: string, live: NodeState, options: AdvanceOptions): AdvanceDecision {
  const plan = state.plan!;
  const node = plan.nodes.find((n) => n.id === nodeId) as PlanNode;
  if (node.capabilityId && !options.fallbacks) return { events: [], needsFallbacks: true };
  if (!live.fallbackCapabilityId && node.capabilityId) {
    const alternative = pickFallback(node, options.fallbacks ?? []);
    if (alternative) return { events: [nodeStart(node, live.attempt + 1, state, alternative.capabilityId)] };
  }
  const failedCapability = live.fallbackCapabilityId ?? node.capabilityId;
  if (node.capabilityId && state.replans < (options.limits?.maxReplans ?? 0) && otherProducers(node, options.fallbacks ?? [], [node.capabilityId, failedCapability]).length > 0) {
    const trigger = { kind: 'node_failed', nodeId, capabilityId: failedCapability, error: live.error?.message ?? 'unknown error' };
    return { events: decideAction(state, { type: 'replan', rationale: `${nodeId} failed on ${failedCapability}` }, { trigger, nodeId }, { maxReplans: options.limits!.maxReplans!, maxHitlRequests: options.limits?.maxHitlRequests ?? DEFAULT_MAX_HITL_REQUESTS }) as DecidedEvent[] };
  }
  const standby = plan.nodes.find((n) => n.kind === 'fallback' && n.fallbackFor === nodeId);
  const reason = `${nodeId} failed after ${live.attempt} attempt(s)${live.fallbackCapabilityId ? ` (fallback ${live.fallbackCapabilityId} included)` : ''}: ${live.error?.message ?? 'unknown error'}`;
  if (!standby) return { events: [{ type: 'run_failed', payload: { code: 'node_failed', nodeId, reason } }] };
  return { events: nodeOutputRequest(state, node, reason, options, { fallbackNodeId: standby.id, error: live.error ?? null }) };
}

/** Active, non-human capabilities other than `exclude` that produce all of the node's outputs. */
function otherProducers(node: PlanNode, registrations: readonly CapabilityRegistration[], exclude: ReadonlyArray<string | undefined>): CapabilityRegistration[] {
  return registrations.filter((r) => !exclude.includes(r.capabilityId) && r.agentType !== 'human' && node.outputFacets.every((f) => r.outputContract.includes(f)));
}

/** Ask an operator for a node's output (fallback node or human capability), within the HITL bound. */
export function nodeOutputRequest(state: StartedRun, node: PlanNode, rationale: string, options: AdvanceOptions, artifact: Record<string, unknown>): DecidedEvent[] {
  const max = options.limits?.maxHitlRequests ?? DEFAULT_MAX_HITL_REQUESTS;
  if (state.hitlCount >= max) {
    return [{ type: 'run_failed', payload: { code: 'hitl_exhausted', nodeId: node.id, reason: `${node.id} needs an operator but the run already raised ${state.hitlCount} HITL request(s); the limit is ${max}` } }];
  }
  const payload = {
    requestId: nextHitlRequestId(state),
    nodeId: node.id,
    rationale: rationale.slice(0, 4000),
    contractSummary: { outputFacets: node.outputFacets, ...(node.outputSchema ? { outputSchema: node.outputSchema } : {}) },
    artifact: JSON.parse(JSON.stringify(artifact)),
    mode: 'node_output',
  };
  return [{ type: 'hitl_request', payload }];
}

/**
 * The first active capability (by id) other than the node's own that produces all the node's
 * outputs and accepts every input facet the node is given (agents refuse undeclared facets; the
 * facets a capability declares are what it can take, not what it needs).
 */
function pickFallback(node: PlanNode, registrations: readonly CapabilityRegistration[]): CapabilityRegistration | undefined {
  return [...registrations]
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0))
    .find(
      (r) =>
        r.capabilityId !== node.capabilityId &&
        r.agentType !== 'human' &&
        node.outputFacets.every((f) => r.outputContract.includes(f)) &&
        node.inputFacets.every((f) => r.inputContract.includes(f)),
    );
}

function nodeStart(node: PlanNode, attempt: number, state: StartedRun, capabilityId = node.capabilityId): DecidedEvent {
  return {
    type: 'node_start',
    payload: JSON.parse(JSON.stringify({ nodeId: node.id, capabilityId, kind: node.kind, attempt, idempotencyKey: `${state.runId}:${node.id}:${attempt}` })),
  };
}

/** Orchestrator-managed nodes (branch, transformation) pass their upstream facets through. */
function virtualCompletion(state: StartedRun, node: PlanNode): DecidedEvent {
  const output: Record<string, unknown> = {};
  for (const up of upstreamOf(state.plan!, node.id)) Object.assign(output, state.nodes[up]?.output ?? {});
  const kept = node.outputFacets.length ? Object.fromEntries(Object.entries(output).filter(([k]) => node.outputFacets.includes(k))) : output;
  return { type: 'node_complete', payload: { nodeId: node.id, kind: node.kind, attempt: 1, output: kept, durationMs: 0 } };
}

function finish(state: StartedRun): DecidedEvent[] {
  const composed = composeFinalOutput(state);
  if (!composed.ok) {
    return [
      { type: 'validation_error', payload: { scope: 'final_output', errors: composed.errors } },
      { type: 'run_failed', payload: { code: composed.reason, reason: `the final output does not satisfy the ${composed.reason === 'constraint_failed' ? 'contract constraints' : 'caller schema'}: ${composed.errors[0]?.message ?? ''}` } },
    ];
  }
  const { satisfactionScore } = state;
  return [{ type: 'complete', payload: { output: composed.output, planVersion: state.planVersion, satisfactionScore, observedSatisfaction: composed.observedSatisfaction } }];
}
