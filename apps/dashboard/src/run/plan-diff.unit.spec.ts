import type { PlanGraph } from '@flex/contracts';
import { diffPlans, isEmptyDiff } from './plan-diff';

const metadata = {
  plannerId: 'p',
  plannerVersion: '1',
  determinism: 'full' as const,
  inputHash: 'a'.repeat(64),
};
const node = (id: string, label = id) => ({
  id,
  kind: 'execution' as const,
  label,
  inputFacets: [],
  outputFacets: ['x'],
});
const plan = (nodes: PlanGraph['nodes'], edges: PlanGraph['edges'], planVersion = 1): PlanGraph => ({
  planVersion,
  nodes,
  edges,
  metadata,
});

describe('diffPlans', () => {
  it('names added, removed and changed nodes, and added and removed edges', () => {
    const before = plan(
      [node('a'), node('b'), node('c')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
      ],
    );
    const after = plan(
      [node('a'), node('b', 'Better'), node('d')],
      [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'd' },
      ],
      2,
    );
    expect(diffPlans(before, after)).toEqual({
      added: ['d'],
      removed: ['c'],
      changed: [{ nodeId: 'b', fields: ['label'] }],
      edgesAdded: ['b → d'],
      edgesRemoved: ['b → c'],
    });
  });

  it('finds nothing between two versions of the same shape, whatever the key order', () => {
    const a = plan([node('a')], []);
    const b = plan([{ outputFacets: ['x'], inputFacets: [], label: 'a', kind: 'execution', id: 'a' }], [], 2);
    expect(isEmptyDiff(diffPlans(a, b))).toBe(true);
  });
});
