/** A plan's shape as the graph draws it: node ids and dependency edges. */
export interface GraphInput {
  nodes: ReadonlyArray<{ id: string }>;
  edges: ReadonlyArray<{ from: string; to: string }>;
}

export interface PlacedNode {
  id: string;
  layer: number;
  x: number;
  y: number;
}

export interface GraphLayout {
  /** In reading order: layer by layer, left to right (the keyboard's tab order). */
  nodes: PlacedNode[];
  edges: Array<{ from: string; to: string; path: string }>;
  width: number;
  height: number;
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 60;
const GAP_X = 24;
const GAP_Y = 40;

/**
 * A layered drawing, top to bottom: a node sits one layer below its deepest dependency; within a
 * layer, nodes are ordered by where their dependencies sit (fewer crossings). Edges naming unknown
 * nodes are left out; a cycle (which the validator refuses anyway) cannot loop the layering.
 */
export function layoutGraph(graph: GraphInput): GraphLayout {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const edges = graph.edges.filter((e) => ids.has(e.from) && ids.has(e.to) && e.from !== e.to);
  const layer = layersOf(
    graph.nodes.map((n) => n.id),
    edges,
  );
  const rows: string[][] = [];
  for (const node of graph.nodes) (rows[layer.get(node.id) ?? 0] ??= []).push(node.id);
  const position = new Map<string, number>();
  rows.forEach((row, depth) => {
    if (depth > 0) row.sort((a, b) => barycenter(a, edges, position) - barycenter(b, edges, position));
    row.forEach((id, i) => position.set(id, i));
  });
  const widest = Math.max(1, ...rows.map((r) => r?.length ?? 0));
  const width = widest * NODE_WIDTH + (widest - 1) * GAP_X;
  const nodes: PlacedNode[] = [];
  rows.forEach((row, depth) => {
    const rowWidth = row.length * NODE_WIDTH + (row.length - 1) * GAP_X;
    const left = (width - rowWidth) / 2;
    row.forEach((id, i) =>
      nodes.push({ id, layer: depth, x: left + i * (NODE_WIDTH + GAP_X), y: depth * (NODE_HEIGHT + GAP_Y) }),
    );
  });
  const at = new Map(nodes.map((n) => [n.id, n]));
  return {
    nodes,
    edges: edges.map((e) => ({
      ...e,
      path: edgePath(at.get(e.from) as PlacedNode, at.get(e.to) as PlacedNode),
    })),
    width,
    height: rows.length * NODE_HEIGHT + Math.max(0, rows.length - 1) * GAP_Y,
  };
}

/** Longest-path layering, relaxed at most once per node (so a cycle ends it instead of looping). */
function layersOf(ids: string[], edges: GraphInput['edges']): Map<string, number> {
  const layer = new Map(ids.map((id) => [id, 0]));
  for (let round = 0; round < ids.length; round++) {
    let moved = false;
    for (const e of edges) {
      const want = (layer.get(e.from) ?? 0) + 1;
      if (want > (layer.get(e.to) ?? 0) && want < ids.length) {
        layer.set(e.to, want);
        moved = true;
      }
    }
    if (!moved) break;
  }
  return layer;
}

function barycenter(id: string, edges: GraphInput['edges'], position: Map<string, number>): number {
  const parents = edges.filter((e) => e.to === id).map((e) => position.get(e.from) ?? 0);
  return parents.length ? parents.reduce((a, b) => a + b, 0) / parents.length : 0;
}

function edgePath(from: PlacedNode, to: PlacedNode): string {
  const x1 = from.x + NODE_WIDTH / 2;
  const y1 = from.y + NODE_HEIGHT;
  const x2 = to.x + NODE_WIDTH / 2;
  const y2 = to.y;
  const bend = Math.max(16, (y2 - y1) / 2);
  return `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`;
}
