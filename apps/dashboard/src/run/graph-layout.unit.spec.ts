import { layoutGraph, NODE_HEIGHT } from './graph-layout';

describe('layoutGraph', () => {
  it('puts each node one layer below its deepest dependency, in reading order', () => {
    const layout = layoutGraph({
      nodes: [{ id: 'a' }, { id: 'b1' }, { id: 'b2' }, { id: 'c' }],
      edges: [
        { from: 'a', to: 'b1' },
        { from: 'a', to: 'b2' },
        { from: 'b1', to: 'c' },
        { from: 'b2', to: 'c' },
        { from: 'a', to: 'c' },
      ],
    });
    expect(layout.nodes.map((n) => [n.id, n.layer])).toEqual([
      ['a', 0],
      ['b1', 1],
      ['b2', 1],
      ['c', 2],
    ]);
    expect(layout.edges).toHaveLength(5);
    expect(layout.height).toBeGreaterThanOrEqual(3 * NODE_HEIGHT);
    const [b1, b2] = layout.nodes.slice(1, 3);
    expect(b1.y).toBe(b2.y);
    expect(b1.x).toBeLessThan(b2.x);
  });

  it('survives a cycle and edges to unknown nodes', () => {
    const layout = layoutGraph({
      nodes: [{ id: 'a' }, { id: 'b' }],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
        { from: 'a', to: 'zz' },
      ],
    });
    expect(layout.nodes).toHaveLength(2);
    expect(layout.edges).toHaveLength(2);
  });
});
