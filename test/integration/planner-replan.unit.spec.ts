import { bindContract } from '@flex/proof';
import { provePlan } from '../../services/validator/src/validation/prove-plan';
import { splitIntoLanes } from '../../services/planner/src/plan/lanes';
import { planRuleBased } from '../../services/planner/src/plan/rule-based.planner';
import { planOf, registrations, request, sampleEnvelope } from '../../services/planner/src/plan/test.fixture';
import type { ReplanContext } from '../../services/planner/src/plan/planner';

describe('replan keeps completed work', () => {
  const envelope = sampleEnvelope();
  const v1 = planOf(planRuleBased(request(envelope)));
  const brief = {
    writerBrief: { angle: 'culture', keyPoints: ['Tahoe'], constraints: [] },
    planKnobs: { variantCount: 2 },
  };

  it('returns a new version that keeps completed nodes with the same id, capability and facets', () => {
    const replan: ReplanContext = {
      trigger: { kind: 'manual' },
      previousVersion: 1,
      previousPlan: v1,
      completed: { 'structuring-1': brief },
    };
    const v2 = planOf(planRuleBased(request(envelope, { planVersion: 2, replan })));
    expect(v2.planVersion).toBe(2);
    expect(v2.metadata.planVersionTag).toBe('v2');
    expect(v2.nodes.find((n) => n.id === 'structuring-1')).toEqual(
      v1.nodes.find((n) => n.id === 'structuring-1'),
    );
    expect(v2.nodes.filter((n) => n.capabilityId === 'StrategyManagerAgent.briefing')).toHaveLength(1);
    expect(new Set(v2.nodes.map((n) => n.id)).size).toBe(v2.nodes.length);
    for (const e of v2.edges)
      expect(v2.nodes.map((n) => n.id)).toEqual(expect.arrayContaining([e.from, e.to]));
    expect(v2.metadata.inputHash).not.toBe(v1.metadata.inputHash);
  });

  it('keeps a completed node the fresh plan no longer needs, and gives clashing new nodes new ids', () => {
    const writer = registrations.find((r) => r.outputContract.includes('copyVariants'))!;
    const previous = {
      ...v1,
      nodes: v1.nodes.map((n) => (n.id === 'execution-1' ? { ...n, capabilityId: 'Retired.writer' } : n)),
    };
    const replan: ReplanContext = {
      trigger: { kind: 'node_failed', nodeId: 'execution-1' },
      previousVersion: 1,
      previousPlan: previous,
      completed: { 'structuring-1': brief, 'execution-1': { copyVariants: [] } },
    };
    const v2 = planOf(planRuleBased(request(envelope, { planVersion: 2, replan })));
    expect(v2.nodes.find((n) => n.id === 'execution-1')?.capabilityId).toBe('Retired.writer');
    expect(v2.nodes.find((n) => n.id === 'execution-1-v2')?.capabilityId).toBe(writer.capabilityId);
    expect(v2.nodes.find((n) => n.kind === 'fallback')?.fallbackFor).toBe('execution-1-v2');
  });

  it('steers away from the capability of the node that failed', () => {
    const writer = registrations.find((r) => r.outputContract.includes('copyVariants'))!;
    const alt = { ...writer, capabilityId: 'AltWriterAgent.variants', displayName: 'Alt writer' };
    const replan: ReplanContext = {
      trigger: { kind: 'node_failed', nodeId: 'execution-1' },
      previousVersion: 1,
      previousPlan: v1,
      completed: { 'structuring-1': brief },
    };
    const v2 = planOf(
      planRuleBased(request(envelope, { planVersion: 2, replan, capabilities: [...registrations, alt] })),
    );
    expect(v2.nodes.filter((n) => n.kind === 'execution').map((n) => n.capabilityId)).toEqual([
      'AltWriterAgent.variants',
    ]);
  });
});

describe("a branched plan replans from the failed node's frontier, without duplicating branches or lanes", () => {
  const seven = sampleEnvelope((raw) => {
    raw.outputContract.schema.properties.copyVariants.minItems = 7;
    raw.outputContract.schema.properties.copyVariants.maxItems = 7;
    raw.inputs.variantCount = 7;
    delete raw.specialInstructions;
  });
  /** As the planner service hands a plan on: lanes split and the contract bound. */
  const planned = (result: Parameters<typeof planOf>[0]) =>
    bindContract(splitIntoLanes(planOf(result), seven), seven);
  const writer = registrations.find((r) => r.outputContract.includes('copyVariants'))!;
  const direct = {
    ...writer,
    capabilityId: 'ZZ.directWriter',
    displayName: 'Direct writer',
    inputContract: ['objectiveBrief'],
  };
  const v1 = planned(planRuleBased(request(seven)));
  const ids = (kind: string, plan = v1) => plan.nodes.filter((n) => n.kind === kind).map((n) => n.id);

  it('lane 2 failed for good, lane 1 completed: lane 1 stays as it ran, only lane 2 is planned again, and the proof accepts it', () => {
    expect(ids('execution')).toEqual(['execution-1', 'execution-1-lane-2']);
    const completed: Record<string, Record<string, unknown>> = {
      'structuring-1': {},
      'execution-1': { copyVariants: [] },
    };
    for (const id of ids('branch')) completed[id] = {};
    const trigger = { kind: 'node_failed', nodeId: 'execution-1-lane-2', capabilityId: writer.capabilityId };
    const replan: ReplanContext = { trigger, previousVersion: 1, previousPlan: v1, completed };
    const capabilities = [...registrations, direct];
    const v2 = planned(planRuleBased(request(seven, { planVersion: 2, replan, capabilities })));
    expect(v2.nodes.find((n) => n.id === 'execution-1')).toEqual(
      v1.nodes.find((n) => n.id === 'execution-1'),
    );
    expect(ids('execution', v2)).toEqual(['execution-1', 'execution-1-lane-2']);
    expect(v2.nodes.find((n) => n.id === 'execution-1-lane-2')?.capabilityId).toBe(direct.capabilityId);
    expect(ids('branch', v2)).toEqual(ids('branch'));
    expect(
      v2.edges
        .filter((e) => e.to === 'merge-execution-1')
        .map((e) => e.from)
        .sort(),
    ).toEqual(['execution-1', 'execution-1-lane-2']);
    expect(v2.nodes.find((n) => n.id === 'fallback-1-lane-2')?.fallbackFor).toBe('execution-1-lane-2');
    expect(new Set(v2.nodes.map((n) => n.id)).size).toBe(v2.nodes.length);
    expect(provePlan(v2, seven, capabilities).status).not.toBe('rejected');
  });

  it('completed branches that passed fewer facets than the new plan needs: replaced, never doubled', () => {
    const narrow = {
      ...v1,
      nodes: v1.nodes.map((n) =>
        n.kind === 'branch' ? { ...n, inputFacets: ['writerBrief'], outputFacets: ['writerBrief'] } : n,
      ),
    };
    const completed: Record<string, Record<string, unknown>> = { 'structuring-1': {} };
    for (const id of ids('branch')) completed[id] = {};
    const trigger = { kind: 'manual', policyId: 'rethink' };
    const replan: ReplanContext = { trigger, previousVersion: 1, previousPlan: narrow, completed };
    const v2 = planned(planRuleBased(request(seven, { planVersion: 2, replan })));
    expect(ids('branch', v2)).toHaveLength(7);
    expect(ids('branch', v2).every((id) => id.endsWith('-v2'))).toBe(true);
    expect(
      v2.nodes.filter((n) => n.kind === 'branch').every((n) => n.outputFacets.includes('planKnobs')),
    ).toBe(true);
    expect(new Set(v2.nodes.map((n) => n.id)).size).toBe(v2.nodes.length);
    expect(provePlan(v2, seven, registrations).status).not.toBe('rejected');
  });
});
