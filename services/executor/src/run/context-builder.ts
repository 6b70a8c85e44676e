import type { AgentInvocation } from '@flex/agent-sdk';
import type { PlanNode } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { topologicalOrder, upstreamOf, type StartedRun } from '@flex/run-model';

const SECRET_KEY = /(pass(word)?|secret|token|api[-_]?key|authorization|credential|private[-_]?key)/i;


/**
 * Facet values visible to a node: what the envelope supplies, overridden by the validated outputs
 * of the node's upstream nodes (nearest last), so a node never reads work it does not depend on.
 */
export function facetValuesFor(state: StartedRun, node: PlanNode): Record<string, unknown> {
  const values: Record<string, unknown> = { ...envelopeFacets(state.envelope).values };
  const upstream = ancestorsOf(state, node.id);
  for (const n of topologicalOrder(state.plan!)) {
    const out = state.nodes[n.id]?.output;
    if (upstream.has(n.id) && out) Object.assign(values, out);
  }
  return values;
}

export function buildInvocation(state: StartedRun, node: PlanNode, attempt: number, deadlineMs: number): AgentInvocation {
  const available = facetValuesFor(state, node);
  const inputs: Record<string, unknown> = {};
  for (const facet of node.inputFacets) if (available[facet] !== undefined) inputs[facet] = available[facet];
  return {
    runId: state.runId,
    nodeId: node.id,
    attempt,
    idempotencyKey: `${state.runId}:${node.id}:${attempt}`,
    capabilityId: node.capabilityId as string,
    inputs,
    outputFacets: node.outputFacets,
    instructions: node.instructions,
    context: {
      objective: state.envelope.objective,
      specialInstructions: state.envelope.specialInstructions,
      inputs: redact(state.envelope.inputs ?? {}) as Record<string, unknown>,
    },
    deadlineMs,
  };
}

/** Secret-looking keys never leave the orchestrator in a context bundle. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32) return '[truncated]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1)]),
  );
}

function ancestorsOf(state: StartedRun, nodeId: string): Set<string> {
  const seen = new Set<string>();
  const stack = [nodeId];
  while (stack.length) {
    for (const up of upstreamOf(state.plan!, stack.pop() as string)) {
      if (!seen.has(up)) {
        seen.add(up);
        stack.push(up);
      }
    }
  }
  return seen;
}
