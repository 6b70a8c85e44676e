import type { PlanGraph, PlanNode } from '@flex/contracts';

/** How one plan version differs from the one before it: nodes and edges added, removed or changed. */
export interface PlanDiff {
  added: string[];
  removed: string[];
  /** Nodes in both versions whose definitions differ, with the fields that do. */
  changed: Array<{ nodeId: string; fields: string[] }>;
  edgesAdded: string[];
  edgesRemoved: string[];
}

/** What changed from `before` to `after`, by node id (a node kept by a replan keeps its id). */
export function diffPlans(before: PlanGraph, after: PlanGraph): PlanDiff {
  const old = new Map(before.nodes.map((n) => [n.id, n]));
  const now = new Map(after.nodes.map((n) => [n.id, n]));
  const changed: PlanDiff['changed'] = [];
  for (const [id, node] of now) {
    const was = old.get(id);
    if (!was) continue;
    const fields = changedFields(was, node);
    if (fields.length) changed.push({ nodeId: id, fields });
  }
  const edges = (plan: PlanGraph) => new Set(plan.edges.map((e) => `${e.from} → ${e.to}`));
  const oldEdges = edges(before);
  const newEdges = edges(after);
  return {
    added: [...now.keys()].filter((id) => !old.has(id)),
    removed: [...old.keys()].filter((id) => !now.has(id)),
    changed,
    edgesAdded: [...newEdges].filter((e) => !oldEdges.has(e)),
    edgesRemoved: [...oldEdges].filter((e) => !newEdges.has(e)),
  };
}

export const isEmptyDiff = (d: PlanDiff): boolean =>
  !d.added.length && !d.removed.length && !d.changed.length && !d.edgesAdded.length && !d.edgesRemoved.length;

function changedFields(a: PlanNode, b: PlanNode): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const fields: string[] = [];
  for (const key of keys)
    if (stable(a[key as keyof PlanNode]) !== stable(b[key as keyof PlanNode])) fields.push(key);
  return fields.sort();
}

/** JSON with object keys sorted, so equal values compare equal whatever their key order. */
function stable(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : 1)),
          )
        : v,
    ) ?? 'undefined'
  );
}
