import type { PlanEdge, PlanGraph, PlanNode } from '@flex/contracts';
import { dependencyOrder } from './node-compiler';
import type { ReplanContext } from './planner';

/**
 * A replan keeps completed work (DESIGN §5.6): every completed node of the current graph stays,
 * verbatim (same id, capability and facets), so its output survives; a fresh node doing the same
 * job as a completed one is replaced by it; other fresh nodes get ids that cannot collide.
 */
export function keepCompletedWork(fresh: PlanGraph, replan: ReplanContext): PlanGraph {
  const kept = replan.previousPlan.nodes.filter((n) => replan.completed[n.id] !== undefined);
  const keptIds = new Set(kept.map((n) => n.id));
  const rename = new Map<string, string>();
  const matched = new Set<string>();
  for (const node of fresh.nodes) {
    const twin = kept.find((k) => !matched.has(k.id) && sameJob(k, node));
    if (twin) {
      matched.add(twin.id);
      rename.set(node.id, twin.id);
    } else if (keptIds.has(node.id)) {
      rename.set(node.id, `${node.id}-v${fresh.planVersion}`);
    }
  }
  const id = (x: string) => rename.get(x) ?? x;
  const freshNodes = fresh.nodes
    .filter((n) => !matched.has(id(n.id)))
    .map((n) => ({ ...n, id: id(n.id), ...(n.fallbackFor ? { fallbackFor: id(n.fallbackFor) } : {}) }));
  const edges = uniqueEdges([
    ...replan.previousPlan.edges.filter((e) => keptIds.has(e.from) && keptIds.has(e.to)),
    ...fresh.edges.map((e) => ({ from: id(e.from), to: id(e.to) })),
  ]);
  const nodes = dependencyOrder([...kept, ...freshNodes], edges);
  return { ...fresh, nodes, edges };
}

/** Capabilities a replan should steer away from: the one whose node failed or triggered the replan. */
export function capabilitiesToAvoid(replan: ReplanContext): string[] {
  const trigger = replan.trigger;
  const nodeId = typeof trigger.nodeId === 'string' ? trigger.nodeId : undefined;
  const fromNode = replan.previousPlan.nodes.find((n) => n.id === nodeId && replan.completed[n.id] === undefined)?.capabilityId;
  const named = typeof trigger.capabilityId === 'string' ? trigger.capabilityId : undefined;
  return [...new Set([fromNode, named].filter((c): c is string => c !== undefined))].sort();
}

/** A fresh node whose work a completed node already did: same kind and capability, outputs already produced. */
function sameJob(completed: PlanNode, fresh: PlanNode): boolean {
  return (
    completed.kind === fresh.kind &&
    completed.capabilityId === fresh.capabilityId &&
    completed.branch?.index === fresh.branch?.index &&
    fresh.outputFacets.every((f) => completed.outputFacets.includes(f))
  );
}

function uniqueEdges(edges: PlanEdge[]): PlanEdge[] {
  const seen = new Set<string>();
  return edges.filter((e) => {
    const key = `${e.from}\u0000${e.to}`;
    if (e.from === e.to || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
