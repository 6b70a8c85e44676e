import type { PlanGraph, PlanNode } from '@flex/contracts';
import type { NodeState } from './run.state';

/** Direct upstream node ids of a node. */
export function upstreamOf(plan: PlanGraph, nodeId: string): string[] {
  return plan.edges.filter((e) => e.to === nodeId).map((e) => e.from);
}

/**
 * Fallback nodes stand by: they run only when the node they cover has failed for good.
 * Every other node is on the main path and must complete for the run to complete.
 */
export function isStandby(node: PlanNode): boolean {
  return node.kind === 'fallback';
}

/** Nodes whose inputs all exist and that have not started: they may start now. Plan order keeps it deterministic. */
export function readyNodes(plan: PlanGraph, nodes: Record<string, NodeState>): PlanNode[] {
  return plan.nodes.filter((node) => {
    if (isStandby(node) || nodes[node.id]?.status !== 'pending') return false;
    return upstreamOf(plan, node.id)
      .filter((id) => !isStandby(plan.nodes.find((n) => n.id === id) as PlanNode))
      .every((id) => nodes[id]?.status === 'completed');
  });
}

/** True when every main-path node has completed. */
export function mainPathComplete(plan: PlanGraph, nodes: Record<string, NodeState>): boolean {
  return plan.nodes.every((node) => isStandby(node) || nodes[node.id]?.status === 'completed');
}

/** Main-path nodes in topological order (Kahn, ties broken by plan order). */
export function topologicalOrder(plan: PlanGraph): PlanNode[] {
  const indegree = new Map(plan.nodes.map((n) => [n.id, 0]));
  for (const e of plan.edges) indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
  const order: PlanNode[] = [];
  const queue = plan.nodes.filter((n) => indegree.get(n.id) === 0);
  while (queue.length) {
    const node = queue.shift() as PlanNode;
    order.push(node);
    for (const e of plan.edges.filter((x) => x.from === node.id)) {
      const left = (indegree.get(e.to) ?? 0) - 1;
      indegree.set(e.to, left);
      if (left === 0) queue.push(plan.nodes.find((n) => n.id === e.to) as PlanNode);
    }
  }
  return order;
}
