import type { CapabilityRegistration, EventPayload } from '@flex/contracts';
import { decision, NO_DECISION } from '@flex/decider';
import { isPlanned, type RunLimits, type RunState } from '@flex/run-model';
import { buildInvocation } from './context-builder';
import type { ExecutorDecision } from './executor.decision';
import { nodeOutputRequest } from './fallback.decide';

/** A `node_start` to act on, with what the registry says serves it (`undefined`: not registered). */
export interface NodeStartCommand {
  start: EventPayload<'node_start'>;
  agentType: CapabilityRegistration['agentType'] | undefined;
}

/**
 * Act on `node_start` (pure), if that attempt is still the live one: a human capability asks an
 * operator for the node's output; any other is invoked (the `invoke` effect: the adapter calls the
 * agent and its answer is decided by `decideInvocation`). An orchestrator-managed node has no agent.
 */
export function decideNodeStart(
  state: RunState,
  { start, agentType }: NodeStartCommand,
  limits: RunLimits,
): ExecutorDecision {
  if (!isPlanned(state)) return NO_DECISION;
  const live = state.nodes[start.nodeId];
  if (!live || live.status !== 'running' || live.attempt !== start.attempt) return NO_DECISION;
  const node = state.plan.nodes.find((n) => n.id === start.nodeId);
  const capabilityId = start.capabilityId ?? node?.capabilityId;
  if (!node || !capabilityId) return NO_DECISION;
  if (agentType !== 'human')
    return decision([], [{ type: 'invoke', nodeId: node.id, attempt: start.attempt, capabilityId }]);
  const rationale = `${capabilityId} is a human capability: an operator supplies the output of ${node.id}`;
  const inputs = buildInvocation(state, node, start.attempt, 0).inputs;
  return decision(nodeOutputRequest(state, node, rationale, { limits }, { capabilityId, inputs }));
}
