import type { PlanEdge, PlanGraph, PlanNode } from '@flex/contracts';
import { dependencyOrder } from './node-compiler';
import type { ReplanContext } from './planner';

/**
 * A replan keeps completed work (DESIGN §5.6) and re-plans only the failed node's frontier: every
 * completed agent node of the current graph stays, verbatim (same id, capability and facets), so
 * its output survives; a fresh node doing the same job as a completed one is replaced by it, so
 * branches and lanes that already ran are not planned twice; other fresh nodes get ids that cannot
 * collide. A completed orchestrator-managed node (branch, merge) no fresh node matches is dropped:
 * it only passed facets through, and the fresh one doing its job passes them again.
 */
export function keepCompletedWork(fresh: PlanGraph, replan: ReplanContext): PlanGraph {
  const completed = replan.previousPlan.nodes.filter((n) => replan.completed[n.id] !== undefined);
  const rename = new Map<string, string>();
  const matched = new Set<string>();
  for (const node of fresh.nodes) {
    const twin = completed.find((k) => !matched.has(k.id) && sameJob(k, node));
    if (twin) {
      matched.add(twin.id);
      rename.set(node.id, twin.id);
    }
  }
  const kept = completed.filter((n) => n.capabilityId !== undefined || matched.has(n.id));
  // A fresh node must not take a completed node's id: the run would take it for completed.
  for (const node of fresh.nodes) {
    if (!rename.has(node.id) && completed.some((k) => k.id === node.id))
      rename.set(node.id, `${node.id}-v${fresh.planVersion}`);
  }
  const keptIds = new Set(kept.map((n) => n.id));
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
  const fromNode = replan.previousPlan.nodes.find(
    (n) => n.id === nodeId && replan.completed[n.id] === undefined,
  )?.capabilityId;
  const named = typeof trigger.capabilityId === 'string' ? trigger.capabilityId : undefined;
  return [...new Set([fromNode, named].filter((c): c is string => c !== undefined))].sort();
}

/**
 * A fresh node whose work a completed node already did: same kind, branch and lane, outputs already
 * produced, on the same capability. A lane is a share of a split node's job: the share a completed
 * lane produced stands, whichever capability produced it (the replan may have left that one out).
 */
function sameJob(completed: PlanNode, fresh: PlanNode): boolean {
  return (
    completed.kind === fresh.kind &&
    completed.branch?.index === fresh.branch?.index &&
    sameLane(completed, fresh) &&
    fresh.outputFacets.every((f) => completed.outputFacets.includes(f)) &&
    (completed.capabilityId === fresh.capabilityId ||
      (laneOf(completed) !== undefined && fresh.capabilityId !== undefined))
  );
}

function laneOf(node: PlanNode): string | undefined {
  const lane = node.metadata?.lane;
  if (!lane || typeof lane !== 'object') return undefined;
  const { index, count } = lane as { index?: unknown; count?: unknown };
  return typeof index === 'number' && typeof count === 'number' ? `${index}/${count}` : undefined;
}

function sameLane(a: PlanNode, b: PlanNode): boolean {
  return laneOf(a) === laneOf(b);
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
