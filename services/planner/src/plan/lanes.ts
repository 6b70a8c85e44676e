import {
  facetAllows,
  getFacetCatalog,
  type PlanEdge,
  type PlanGraph,
  type PlanNode,
  type TaskEnvelope,
} from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import {
  chooseCount,
  contractLength,
  COUNT_KNOBS,
  facetForKey,
  facetSchemaOf,
  finalSources,
  lanesFor,
  requestedCount,
} from '@flex/proof';
import { compileNode } from './node-compiler';

/**
 * A contract may ask for more items than one call of the producing capability can give (7 variants
 * from a facet that holds at most 5 per call). The producing node is then split into lanes that run
 * in parallel, each asked for its share, and an orchestrator-managed node concatenates them in lane
 * order (`merge: concat`). Consumers read the concatenation. Each lane keeps its own HITL fallback;
 * constraints on the whole move from the producer to the merge node. Pure and deterministic.
 */
export function splitIntoLanes(plan: PlanGraph, envelope: TaskEnvelope): PlanGraph {
  const values = envelopeFacets(envelope).values;
  const requested = requestedCount(envelope, values);
  const properties = ((envelope.outputContract.schema as { properties?: Record<string, unknown> })
    .properties ?? {}) as Record<string, unknown>;
  let out = plan;
  for (const key of Object.keys(properties).sort()) {
    if (!COUNT_KNOBS[key]) continue;
    const sources = finalSources(out, key, values);
    const only = sources.length === 1 ? sources[0] : undefined;
    if (only?.kind !== 'node') continue;
    const facet = facetForKey(only.node, key) as string;
    const schema = facetSchemaOf(facet);
    const perCall =
      schema && typeof schema === 'object' && typeof schema.maxItems === 'number'
        ? schema.maxItems
        : undefined;
    const count = chooseCount(contractLength(envelope, key, properties[key]), requested);
    if (count === undefined || perCall === undefined || count <= perCall) continue;
    out = split(out, only.node, facet, lanesFor(count, perCall));
  }
  return out;
}

function split(plan: PlanGraph, producer: PlanNode, facet: string, lanes: number): PlanGraph {
  const laneIds = Array.from({ length: lanes }, (_, i) =>
    i === 0 ? producer.id : `${producer.id}-lane-${i + 1}`,
  );
  const { enforces, ...plain } = producer;
  const copies = laneIds.map((id, i) => ({
    ...plain,
    id,
    label: `${producer.label} (lane ${i + 1} of ${lanes})`.slice(0, 200),
    metadata: { ...producer.metadata, lane: { index: i, count: lanes } },
  }));
  const merge = mergeNode(producer, facet, laneIds, enforces);
  const standby = plan.nodes.filter((n) => n.kind === 'fallback' && n.fallbackFor === producer.id);
  const laneStandby = standby.flatMap((s) =>
    laneIds.slice(1).map((id, i) => ({ ...s, id: `${s.id}-lane-${i + 2}`, fallbackFor: id })),
  );
  const incoming = plan.edges.filter((e) => e.to === producer.id);
  const standbyIds = new Set(standby.map((s) => s.id));
  const edges: PlanEdge[] = [
    ...plan.edges.filter((e) => e.to !== producer.id && e.from !== producer.id),
    ...laneIds.flatMap((id) => incoming.map((e) => ({ from: e.from, to: id }))),
    ...laneIds.map((id) => ({ from: id, to: merge.id })),
    ...plan.edges
      .filter((e) => e.from === producer.id)
      .map((e) => ({ from: standbyIds.has(e.to) ? producer.id : merge.id, to: e.to })),
    ...laneStandby.map((s) => ({ from: s.fallbackFor as string, to: s.id })),
  ];
  const at = plan.nodes.findIndex((n) => n.id === producer.id);
  const nodes = [...plan.nodes.slice(0, at), ...copies, merge, ...plan.nodes.slice(at + 1), ...laneStandby];
  return { ...plan, nodes, edges };
}

function mergeNode(
  producer: PlanNode,
  facet: string,
  laneIds: readonly string[],
  enforces?: string[],
): PlanNode {
  const definition = getFacetCatalog().get(facet);
  return compileNode({
    id: `merge-${producer.id}`,
    kind: 'transformation',
    label: `Concatenate ${facet} from ${laneIds.length} lanes`,
    inputFacets: definition && facetAllows(definition, 'input') ? [facet] : [],
    outputFacets: [...producer.outputFacets],
    merge: { [facet]: 'concat' },
    ...(enforces?.length ? { enforces } : {}),
    instructions: `Concatenate ${facet} from ${laneIds.join(', ')} in lane order.`,
    rationale: `The contract asks for more ${facet} items than one call of ${producer.capabilityId ?? producer.id} produces; lanes share the count.`,
  });
}
