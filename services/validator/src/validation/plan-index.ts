import type { PlanEdge, PlanGraph, PlanNode } from '@flex/contracts';

/**
 * Everything the checks ask of a plan's graph, computed once in O(nodes + edges): nodes by id and
 * by position, adjacency both ways (compressed, integer-indexed), a topological order (Kahn, ties
 * by plan order), the longest path, and for each node a bitset of the facets its ancestors
 * produce. Checks read these instead of scanning the edge list.
 */
export interface PlanIndex {
  readonly plan: PlanGraph;
  /** The first node of each id, by id. */
  readonly byId: ReadonlyMap<string, PlanNode>;
  /** Position of each (first) node id in `nodes`. */
  readonly position: ReadonlyMap<string, number>;
  /** The distinct nodes (first of each id), in plan order. */
  readonly nodes: readonly PlanNode[];
  /** Edges naming a node that does not exist. */
  readonly danglingEdges: readonly PlanEdge[];
  /** Nodes in topological order; shorter than `nodes` when the plan has a cycle. */
  readonly order: readonly PlanNode[];
  readonly acyclic: boolean;
  /** Longest path, in nodes (0 for a cyclic plan: the cycle check reports it). */
  readonly depth: number;
  /** The last main-path (non-fallback) node in topological order. */
  readonly terminal?: PlanNode;
  /** Position of a node in `order` (-1 when it is not ordered). */
  rankOf(nodeId: string): number;
  children(position: number): readonly number[];
  parents(position: number): readonly number[];
  /** True when an ancestor of `nodeId` (not the node itself) lists `facet` among its outputs. */
  hasUpstream(nodeId: string, facet: string): boolean;
}

export function indexPlan(plan: PlanGraph): PlanIndex {
  const position = new Map<string, number>();
  const byId = new Map<string, PlanNode>();
  const nodes: PlanNode[] = [];
  for (const node of plan.nodes) {
    if (position.has(node.id)) continue;
    position.set(node.id, nodes.length);
    byId.set(node.id, node);
    nodes.push(node);
  }
  const n = nodes.length;
  const down: number[][] = Array.from({ length: n }, () => []);
  const up: number[][] = Array.from({ length: n }, () => []);
  const danglingEdges: PlanEdge[] = [];
  for (const edge of plan.edges) {
    const from = position.get(edge.from);
    const to = position.get(edge.to);
    if (from === undefined || to === undefined) {
      danglingEdges.push(edge);
      continue;
    }
    down[from].push(to);
    up[to].push(from);
  }
  const order = kahn(n, up, down);
  const acyclic = order.length === n;
  const rank = new Int32Array(n).fill(-1);
  order.forEach((i, r) => (rank[i] = r));
  const facets = acyclic ? upstreamFacets(nodes, order, up) : undefined;
  let terminal: PlanNode | undefined;
  for (let r = order.length - 1; r >= 0 && !terminal; r--)
    if (nodes[order[r]].kind !== 'fallback') terminal = nodes[order[r]];
  return {
    plan,
    byId,
    position,
    nodes,
    danglingEdges,
    order: order.map((i) => nodes[i]),
    acyclic,
    depth: acyclic ? longestPath(order, up) : 0,
    terminal,
    rankOf: (id) => {
      const i = position.get(id);
      return i === undefined ? -1 : rank[i];
    },
    children: (i) => down[i],
    parents: (i) => up[i],
    hasUpstream: (id, facet) => {
      const i = position.get(id);
      const bit = facets?.bits.get(facet);
      if (i === undefined || bit === undefined || !facets) return false;
      return (facets.sets[i * facets.words + (bit >>> 5)] & (1 << (bit & 31))) !== 0;
    },
  };
}

function kahn(n: number, up: number[][], down: number[][]): number[] {
  const indegree = new Int32Array(n);
  for (let i = 0; i < n; i++) indegree[i] = up[i].length;
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) queue.push(i);
  for (let head = 0; head < queue.length; head++) {
    for (const child of down[queue[head]]) if (--indegree[child] === 0) queue.push(child);
  }
  return queue;
}

function longestPath(order: readonly number[], up: number[][]): number {
  const length = new Int32Array(order.length);
  let depth = 0;
  for (const i of order) {
    let longest = 0;
    for (const p of up[i]) if (length[p] > longest) longest = length[p];
    length[i] = longest + 1;
    if (longest + 1 > depth) depth = longest + 1;
  }
  return depth;
}

/** Per node, the bitset of facets produced by its ancestors: one pass in topological order. */
function upstreamFacets(nodes: readonly PlanNode[], order: readonly number[], up: number[][]) {
  const bits = new Map<string, number>();
  for (const node of nodes) for (const f of node.outputFacets) if (!bits.has(f)) bits.set(f, bits.size);
  const words = Math.max(1, Math.ceil(bits.size / 32));
  const sets = new Uint32Array(nodes.length * words); // what reaches node i from above
  const own = new Uint32Array(nodes.length * words); // what node i passes down: sets[i] | its outputs
  for (const i of order) {
    const at = i * words;
    for (const p of up[i]) for (let w = 0; w < words; w++) sets[at + w] |= own[p * words + w];
    for (let w = 0; w < words; w++) own[at + w] = sets[at + w];
    for (const f of nodes[i].outputFacets) {
      const bit = bits.get(f) as number;
      own[at + (bit >>> 5)] |= 1 << (bit & 31);
    }
  }
  return { bits, words, sets };
}
