import type { AgentInvocation } from '@flex/agent-sdk';
import type { PlanNode } from '@flex/contracts';
import { facetValuesFor, nodeOutputSchema, type StartedRun } from '@flex/run-model';

const MAX_MERGE_DEPTH = 32;

export { facetValuesFor };

/**
 * What one attempt of a node is sent: its input facets (with what the contract binds merged over
 * them), its full output contract, and, on a repair attempt, the errors an earlier attempt was
 * refused for. Everything comes from the run's state, so a replay builds the same invocation; secret
 * references stay references (the adapter reveals them for a facet that asks, see secret-inputs).
 */
export function buildInvocation(
  state: StartedRun,
  node: PlanNode,
  attempt: number,
  deadlineMs: number,
): AgentInvocation {
  const feedback = state.nodes[node.id]?.feedback;
  return {
    runId: state.runId,
    nodeId: node.id,
    attempt,
    idempotencyKey: `${state.runId}:${node.id}:${attempt}`,
    capabilityId: node.capabilityId as string,
    inputs: nodeInputs(state, node),
    outputFacets: node.outputFacets,
    outputSchema: nodeOutputSchema(node),
    ...(node.bindings?.part ? { part: { ...node.bindings.part } } : {}),
    ...(feedback && feedback.attempt < attempt
      ? { feedback: { attempt: feedback.attempt, errors: feedback.errors.map((e) => ({ ...e })) } }
      : {}),
    instructions: node.instructions,
    context: {
      objective: state.envelope.objective,
      specialInstructions: state.envelope.specialInstructions,
      // Secrets were replaced by references before `start` was appended: the envelope holds none.
      inputs: state.envelope.inputs,
    },
    deadlineMs,
  };
}

/**
 * The node's input facet values; `bindings.inputs` (fields the caller's contract fixes, such as the
 * variant count) are deep-merged over them, creating the facet value when nothing upstream gave one.
 */
export function nodeInputs(state: StartedRun, node: PlanNode): Record<string, unknown> {
  const available = facetValuesFor(state, node);
  const inputs: Record<string, unknown> = {};
  for (const facet of node.inputFacets) if (available[facet] !== undefined) inputs[facet] = available[facet];
  const bound = node.bindings?.inputs ?? {};
  for (const facet of Object.keys(bound).sort()) inputs[facet] = deepMerge(inputs[facet], bound[facet], 0);
  return inputs;
}

/** `over` wins, objects merge key by key, arrays and scalars are replaced. */
function deepMerge(base: unknown, over: unknown, depth: number): unknown {
  if (!isObject(over) || !isObject(base) || depth > MAX_MERGE_DEPTH) return over;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = deepMerge(base[key], value, depth + 1);
  return merged;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
