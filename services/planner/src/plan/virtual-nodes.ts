import {
  facetAllows,
  getFacetCatalog,
  type PlanEdge,
  type PlanNode,
  type TaskEnvelope,
} from '@flex/contracts';
import { compileNode } from './node-compiler';
import type { PlanShape } from './plan-shape';

/**
 * Branch expansion (spec 003 §5.7): one orchestrator-managed branch node per variant, between the
 * structuring nodes and the execution nodes that read them. Branch nodes have no capability; the
 * executor passes the structuring facets through them, so each variant has its own lane.
 */
export function branchNodes(
  nodes: PlanNode[],
  edges: PlanEdge[],
  shape: PlanShape,
  envelope: TaskEnvelope,
): { nodes: PlanNode[]; edges: PlanEdge[]; count: number } {
  const wanted = shape.variantCount > 1 || shape.requiredKinds.includes('branch');
  const executions = nodes.filter((n) => n.kind === 'execution');
  if (!wanted || shape.forbiddenKinds.includes('branch') || executions.length === 0)
    return { nodes, edges, count: 0 };
  const count = Math.max(1, shape.variantCount);
  const execIds = new Set(executions.map((n) => n.id));
  const structuring = new Set(nodes.filter((n) => n.kind === 'structuring').map((n) => n.id));
  const crossing = edges.filter((e) => structuring.has(e.from) && execIds.has(e.to));
  const origins = [...new Set(crossing.map((e) => e.from))].sort();
  const targets = crossing.length ? [...new Set(crossing.map((e) => e.to))].sort() : [...execIds];
  const originFacets = new Set(nodes.filter((n) => origins.includes(n.id)).flatMap((n) => n.outputFacets));
  const facets = [
    ...new Set(executions.filter((n) => targets.includes(n.id)).flatMap((n) => n.inputFacets)),
  ].filter((f) => originFacets.has(f));
  const directions =
    envelope.specialInstructions?.length === count ? envelope.specialInstructions : undefined;
  const branches = Array.from({ length: count }, (_, index) =>
    compileNode({
      id: `branch-${index + 1}`,
      kind: 'branch',
      label: `Variant ${index + 1} of ${count}`,
      inputFacets: facets,
      outputFacets: facets,
      branch: { index, count },
      instructions: `Orchestrator-managed branch ${index + 1} of ${count}: pass ${facets.join(', ') || 'the upstream facets'} to ${targets.join(', ')} for variant ${index + 1}.${directions ? ` Variant direction: ${directions[index]}` : ''}`,
      rationale: `The plan asks for ${count} variant(s); each gets its own branch between ${origins.join(', ') || 'the envelope'} and ${targets.join(', ')}.`,
      metadata: { variant: index + 1, origin: origins },
    }),
  );
  const kept = edges.filter((e) => !(structuring.has(e.from) && execIds.has(e.to)));
  const added = branches.flatMap((b) => [
    ...origins.map((from) => ({ from, to: b.id })),
    ...targets.map((to) => ({ from: b.id, to })),
  ]);
  const firstExec = nodes.findIndex((n) => targets.includes(n.id));
  return {
    nodes: [...nodes.slice(0, firstExec), ...branches, ...nodes.slice(firstExec)],
    edges: [...kept, ...added],
    count,
  };
}

/**
 * A normalization node (spec 003 §5.7) only when no single selected capability's output already
 * covers the caller schema: the schema's facets come from several producers and must be merged
 * into one object. Orchestrator-managed: the executor passes the producers' facets through it.
 */
export function transformationNode(
  nodes: PlanNode[],
  shape: PlanShape,
  schemaProps: readonly string[],
  producedBy: ReadonlyMap<string, string>,
): { node: PlanNode; edges: PlanEdge[] } | undefined {
  if (shape.forbiddenKinds.includes('transformation')) return undefined;
  const produced = schemaProps.filter((p) => producedBy.has(p));
  const producers = [...new Set(produced.map((p) => producedBy.get(p) as string))]
    .filter((id) => nodes.some((n) => n.id === id))
    .sort();
  const needed =
    producers.length > 1 || (shape.requiredKinds.includes('transformation') && producers.length > 0);
  if (!needed) return undefined;
  const node = compileNode({
    id: 'transformation-1',
    kind: 'transformation',
    label: 'Normalize to the caller schema',
    // Output-only facets (strategicRationale) cannot be declared as inputs; they pass through all the same.
    inputFacets: produced.filter((f) => {
      const definition = getFacetCatalog().get(f);
      return definition !== undefined && facetAllows(definition, 'input');
    }),
    outputFacets: produced,
    instructions: `Merge ${produced.join(', ')} from ${producers.join(', ')} into one object shaped as the caller schema.`,
    rationale:
      producers.length > 1
        ? `No single selected capability produces every field of the caller schema (${produced.join(', ')} come from ${producers.join(', ')}), so a normalization node merges them.`
        : 'Policy requires a transformation node; it normalizes the producer output to the caller schema.',
  });
  return { node, edges: producers.map((from) => ({ from, to: node.id })) };
}
