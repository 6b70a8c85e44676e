import { decision } from '@flex/decider';
import type { CapabilityRegistration, PlanNode } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import {
  decideAction,
  DEFAULT_MAX_HITL_REQUESTS,
  nextHitlRequestId,
  replanLimitFailure,
  type NodeState,
  type RunLimits,
  type RunningRun,
  type StartedRun,
} from '@flex/run-model';
import { NEED_REGISTRY, type ExecutorDecision } from './executor.decision';
import { nodeStart } from './node-start';
import type { RetryPolicy } from './retry.decide';

/** What moving a run forward decided: events, and a wake-up or a need for the registry's view. */
export type AdvanceDecision = ExecutorDecision;

export interface AdvanceOptions {
  /** Active registrations (registry snapshot), when the adapter fetched them. */
  fallbacks?: readonly CapabilityRegistration[];
  limits?: Partial<RunLimits>;
  /** Node retry budget (`FLEX_NODE_MAX_ATTEMPTS`); a repair of the final output spends it too. */
  retry?: RetryPolicy;
}

/** Codes of a node failure that came from repairing the final output: the run ends with that code. */
const FINAL_OUTPUT_CODES: ReadonlySet<string> = new Set(['output_invalid', 'constraint_failed']);

/**
 * Retries are spent: another capability producing the node's outputs that accepts its inputs; else,
 * when some other active capability produces those outputs from different inputs and replans remain,
 * a replan that steers away from what failed (DESIGN §5.6: replan from a failure); then a human
 * through the plan's fallback node; then the end, with the last errors.
 */
export function fallbackChain(
  state: RunningRun,
  node: PlanNode,
  live: NodeState,
  options: AdvanceOptions,
): AdvanceDecision {
  const { plan } = state;
  if (node.capabilityId && !options.fallbacks) return NEED_REGISTRY;
  if (!live.fallbackCapabilityId && node.capabilityId) {
    const alternative = pickFallback(node, options.fallbacks ?? []);
    if (alternative) return decision([nodeStart(node, live.attempt + 1, state, alternative.capabilityId)]);
  }
  const failedCapability = live.fallbackCapabilityId ?? node.capabilityId;
  const maxReplans = options.limits?.maxReplans ?? 0;
  // A replan this failure asked for found no valid plan: the run keeps its plan, the node goes on down its chain.
  const refused =
    state.replan?.outcome === 'refused' &&
    state.replan.trigger.kind === 'node_failed' &&
    state.replan.trigger.nodeId === node.id;
  const producers = otherProducers(node, options.fallbacks ?? [], [node.capabilityId, failedCapability]);
  const canReplan = replanLimitFailure(state.replans + 1, maxReplans, 'a node failure') === undefined;
  if (node.capabilityId && !refused && canReplan && producers.length > 0) {
    const trigger = {
      kind: 'node_failed',
      nodeId: node.id,
      capabilityId: failedCapability,
      error: live.error?.message ?? 'unknown error',
    };
    const limits = {
      maxReplans,
      maxHitlRequests: options.limits?.maxHitlRequests ?? DEFAULT_MAX_HITL_REQUESTS,
    };
    const rationale = `${node.id} failed on ${failedCapability}`;
    return decision(decideAction(state, { type: 'replan', rationale }, { trigger, nodeId: node.id }, limits));
  }
  const standby = plan.nodes.find((n) => n.kind === 'fallback' && n.fallbackFor === node.id);
  const reason = `${node.id} failed after ${live.attempt} attempt(s)${live.fallbackCapabilityId ? ` (fallback ${live.fallbackCapabilityId} included)` : ''}: ${live.error?.message ?? 'unknown error'}`;
  const code = live.error && FINAL_OUTPUT_CODES.has(live.error.code) ? live.error.code : 'node_failed';
  if (!standby)
    return decision([
      { type: 'run_failed', payload: { code, nodeId: node.id, reason: reason.slice(0, 8_000) } },
    ]);
  const artifact = {
    fallbackNodeId: standby.id,
    error: live.error ?? null,
    ...(live.feedback ? { feedback: live.feedback } : {}),
  };
  return decision(nodeOutputRequest(state, node, reason, options, artifact));
}

/** Active, non-human capabilities other than `exclude` that produce all of the node's outputs. */
function otherProducers(
  node: PlanNode,
  registrations: readonly CapabilityRegistration[],
  exclude: ReadonlyArray<string | undefined>,
): CapabilityRegistration[] {
  return registrations.filter(
    (r) =>
      !exclude.includes(r.capabilityId) &&
      r.agentType !== 'human' &&
      node.outputFacets.every((f) => r.outputContract.includes(f)),
  );
}

/** Ask an operator for a node's output (fallback node or human capability), within the HITL bound. */
export function nodeOutputRequest(
  state: StartedRun,
  node: PlanNode,
  rationale: string,
  options: AdvanceOptions,
  artifact: Record<string, unknown>,
): DecidedFlexEvent[] {
  const max = options.limits?.maxHitlRequests ?? DEFAULT_MAX_HITL_REQUESTS;
  if (state.hitlCount >= max) {
    return [
      {
        type: 'run_failed',
        payload: {
          code: 'hitl_exhausted',
          nodeId: node.id,
          reason:
            `${node.id} needs an operator but the run already raised ${state.hitlCount} HITL request(s); the limit is ${max}. ${rationale}`.slice(
              0,
              8_000,
            ),
        },
      },
    ];
  }
  const payload = {
    requestId: nextHitlRequestId(state),
    nodeId: node.id,
    rationale: rationale.slice(0, 4000),
    contractSummary: {
      outputFacets: node.outputFacets,
      ...(node.outputSchema ? { outputSchema: node.outputSchema } : {}),
      ...(node.bindings?.outputs ? { bindings: node.bindings.outputs } : {}),
    },
    artifact: JSON.parse(JSON.stringify(artifact)),
    mode: 'node_output' as const,
  };
  return [{ type: 'hitl_request', payload }];
}

/**
 * The first active capability (by id) other than the node's own that produces all the node's
 * outputs and accepts every input facet the node is given (agents refuse undeclared facets; the
 * facets a capability declares are what it can take, not what it needs).
 */
function pickFallback(
  node: PlanNode,
  registrations: readonly CapabilityRegistration[],
): CapabilityRegistration | undefined {
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
