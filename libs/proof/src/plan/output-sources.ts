import { getFacetCatalog, type PlanGraph, type PlanNode } from '@flex/contracts';
import { topologicalOrder, upstreamOf } from '@flex/run-model';

/**
 * Where the final output's value for one key can come from, mirroring the executor's composition
 * (latest completed node in topological order wins; orchestrator-managed nodes pass their direct
 * parents' values through, or concatenate them under `merge: concat`). Fallback nodes never
 * complete themselves: an operator's output completes the node they stand in for, under that
 * node's contract. Alternatives: any one of them may be the value.
 */
export type Source =
  | { readonly kind: 'node'; readonly node: PlanNode }
  | { readonly kind: 'envelope'; readonly value: unknown }
  | { readonly kind: 'concat'; readonly node: PlanNode; readonly lanes: readonly (readonly Source[])[] }
  | { readonly kind: 'untraced'; readonly node: PlanNode };

/** The property key a facet fills in a node's output (the catalog's `propertyKey`, else its name). */
export const keyOfFacet = (facet: string): string => getFacetCatalog().get(facet)?.propertyKey ?? facet;

/** The facet of `node` whose value lands under `key`, if any. */
export function facetForKey(node: PlanNode, key: string): string | undefined {
  return node.outputFacets.find((f) => keyOfFacet(f) === key);
}

/** Every alternative source of `key` in a run of `plan` that completes; empty when nothing provides it. */
export function finalSources(
  plan: PlanGraph,
  key: string,
  envelopeValues: Readonly<Record<string, unknown>>,
): Source[] {
  const main = topologicalOrder(plan).filter(
    (n) => n.kind !== 'fallback' && facetForKey(n, key) !== undefined,
  );
  const last = main.at(-1);
  return last ? sourcesOfNode(plan, last, key, new Set()) : envelopeSource(key, envelopeValues);
}

function envelopeSource(key: string, values: Readonly<Record<string, unknown>>): Source[] {
  const facet = Object.keys(values).find((f) => keyOfFacet(f) === key);
  return facet === undefined ? [] : [{ kind: 'envelope', value: values[facet] }];
}

function sourcesOfNode(plan: PlanGraph, node: PlanNode, key: string, seen: Set<string>): Source[] {
  if (node.capabilityId) return [{ kind: 'node', node }];
  if (seen.has(node.id)) return [{ kind: 'untraced', node }];
  seen.add(node.id);
  const parents = upstreamOf(plan, node.id)
    .map((id) => plan.nodes.find((n) => n.id === id))
    .filter((p): p is PlanNode => p !== undefined && p.kind !== 'fallback' && passes(p, key));
  if (parents.length === 0) return [{ kind: 'untraced', node }];
  const facet = facetForKey(node, key);
  if (facet !== undefined && node.merge?.[facet] === 'concat') {
    return [{ kind: 'concat', node, lanes: parents.map((p) => sourcesOfNode(plan, p, key, new Set(seen))) }];
  }
  return parents.flatMap((p) => sourcesOfNode(plan, p, key, new Set(seen)));
}

/** True when `node`'s output carries `key` (a virtual node with no declared facets passes everything). */
function passes(node: PlanNode, key: string): boolean {
  return facetForKey(node, key) !== undefined || (!node.capabilityId && node.outputFacets.length === 0);
}

/** The agent (or operator) nodes among `sources`, lanes included. */
export function sourceNodes(sources: readonly Source[]): PlanNode[] {
  return sources.flatMap((s) => {
    if (s.kind === 'node') return [s.node];
    if (s.kind === 'concat') return s.lanes.flatMap(sourceNodes);
    return [];
  });
}
