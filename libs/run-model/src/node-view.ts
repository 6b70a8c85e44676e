import type { PlanNode } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { ancestorsOf, topologicalOrder } from './plan.graph';
import type { StartedRun } from './run.state';

/**
 * Facet values visible to a node: what the envelope supplies, overridden by the validated outputs
 * of the node's upstream nodes (nearest last), so a node never reads work it does not depend on.
 */
export function facetValuesFor(state: StartedRun, node: PlanNode): Record<string, unknown> {
  const values: Record<string, unknown> = { ...envelopeFacets(state.envelope).values };
  if (!state.plan) return values;
  const upstream = ancestorsOf(state.plan, node.id);
  for (const n of topologicalOrder(state.plan)) {
    const live = state.nodes[n.id];
    if (upstream.has(n.id) && live?.status === 'completed' && live.output) Object.assign(values, live.output);
  }
  return values;
}
