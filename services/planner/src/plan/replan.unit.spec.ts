import { planRuleBased } from './rule-based.planner';
import { planOf, registrations, request, sampleEnvelope } from './test.fixture';
import type { ReplanContext } from './planner';

describe('replan keeps completed work', () => {
  const envelope = sampleEnvelope();
  const v1 = planOf(planRuleBased(request(envelope)));
  const brief = { writerBrief: { angle: 'culture', keyPoints: ['Tahoe'], constraints: [] }, planKnobs: { variantCount: 2 } };

  it('returns a new version that keeps completed nodes with the same id, capability and facets', () => {
    const replan: ReplanContext = { trigger: { kind: 'manual' }, previousVersion: 1, previousPlan: v1, completed: { 'structuring-1': brief } };
    const v2 = planOf(planRuleBased(request(envelope, { planVersion: 2, replan })));
    expect(v2.planVersion).toBe(2);
    expect(v2.metadata.planVersionTag).toBe('v2');
    expect(v2.nodes.find((n) => n.id === 'structuring-1')).toEqual(v1.nodes.find((n) => n.id === 'structuring-1'));
    expect(v2.nodes.filter((n) => n.capabilityId === 'StrategyManagerAgent.briefing')).toHaveLength(1);
    expect(new Set(v2.nodes.map((n) => n.id)).size).toBe(v2.nodes.length);
    for (const e of v2.edges) expect(v2.nodes.map((n) => n.id)).toEqual(expect.arrayContaining([e.from, e.to]));
    expect(v2.metadata.inputHash).not.toBe(v1.metadata.inputHash);
  });

  it('keeps a completed node the fresh plan no longer needs, and gives clashing new nodes new ids', () => {
    const writer = registrations.find((r) => r.outputContract.includes('copyVariants'))!;
    const previous = { ...v1, nodes: v1.nodes.map((n) => (n.id === 'execution-1' ? { ...n, capabilityId: 'Retired.writer' } : n)) };
    const replan: ReplanContext = { trigger: { kind: 'node_failed', nodeId: 'execution-1' }, previousVersion: 1, previousPlan: previous, completed: { 'structuring-1': brief, 'execution-1': { copyVariants: [] } } };
    const v2 = planOf(planRuleBased(request(envelope, { planVersion: 2, replan })));
    expect(v2.nodes.find((n) => n.id === 'execution-1')?.capabilityId).toBe('Retired.writer');
    expect(v2.nodes.find((n) => n.id === 'execution-1-v2')?.capabilityId).toBe(writer.capabilityId);
    expect(v2.nodes.find((n) => n.kind === 'fallback')?.fallbackFor).toBe('execution-1-v2');
  });

  it('steers away from the capability of the node that failed', () => {
    const writer = registrations.find((r) => r.outputContract.includes('copyVariants'))!;
    const alt = { ...writer, capabilityId: 'AltWriterAgent.variants', displayName: 'Alt writer' };
    const replan: ReplanContext = { trigger: { kind: 'node_failed', nodeId: 'execution-1' }, previousVersion: 1, previousPlan: v1, completed: { 'structuring-1': brief } };
    const v2 = planOf(planRuleBased(request(envelope, { planVersion: 2, replan, capabilities: [...registrations, alt] })));
    expect(v2.nodes.filter((n) => n.kind === 'execution').map((n) => n.capabilityId)).toEqual(['AltWriterAgent.variants']);
  });
});
