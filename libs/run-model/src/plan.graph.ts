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

// A plan is immutable once decided: its order is computed once per plan object.
const orders = new WeakMap<PlanGraph, readonly PlanNode[]>();

/**
 * Nodes in topological order (Kahn, ties broken by plan order; children in edge order). Linear in
 * nodes + edges and cached per plan object: the executor and the proof ask for it on every event.
 * Nodes on a cycle, and edges naming no node, are left out.
 */
export function topologicalOrder(plan: PlanGraph): PlanNode[] {
  const hit = orders.get(plan);
  if (hit) return [...hit];
  const byId = new Map<string, PlanNode>();
  for (const n of plan.nodes) if (!byId.has(n.id)) byId.set(n.id, n);
  const indegree = new Map<string, number>([...byId.keys()].map((id) => [id, 0]));
  const children = new Map<string, string[]>();
  for (const e of plan.edges) {
    if (!byId.has(e.from) || !byId.has(e.to)) continue;
    indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
    const list = children.get(e.from);
    if (list) list.push(e.to);
    else children.set(e.from, [e.to]);
  }
  const queue = [...byId.values()].filter((n) => indegree.get(n.id) === 0);
  for (let head = 0; head < queue.length; head++) {
    for (const child of children.get(queue[head].id) ?? []) {
      const left = (indegree.get(child) ?? 0) - 1;
      indegree.set(child, left);
      const node = byId.get(child);
      if (left === 0 && node) queue.push(node);
    }
  }
  orders.set(plan, queue);
  return [...queue];
}

/** Every node a node depends on, directly or not. */
export function ancestorsOf(plan: PlanGraph, nodeId: string): Set<string> {
  return reachable(nodeId, (id) => upstreamOf(plan, id));
}

/** Main-path nodes that depend on a node, directly or not (standby fallback nodes left out). */
export function descendantsOf(plan: PlanGraph, nodeId: string): Set<string> {
  const standby = new Set(plan.nodes.filter(isStandby).map((n) => n.id));
  return reachable(nodeId, (id) =>
    plan.edges.filter((e) => e.from === id && !standby.has(e.to)).map((e) => e.to),
  );
}

function reachable(start: string, next: (id: string) => string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
    for (const n of next(id)) {
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(n);
    }
  }
  return seen;
}
