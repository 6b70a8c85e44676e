import { PlanGraphSchema, PlannerOutputSchema, type CapabilityRegistration } from '@flex/contracts';
import { planRuleBased, RuleBasedPlanner } from './rule-based.planner';
import { planOf, registrations, request, sampleEnvelope, shape, threeVariantsWithQa } from './test.fixture';

describe('rule-based planner: plan shape for the spec samples', () => {
  it('plans examples/envelope.json (two variants) as strategy → two branches → copywriter → fallback', async () => {
    const result = await new RuleBasedPlanner().plan(request(sampleEnvelope()));
    expect(PlannerOutputSchema.parse(result)).toMatchObject({ deterministic: true });
    const plan = planOf(result);
    expect(shape(plan)).toEqual([
      ['structuring-1', 'structuring', 'StrategyManagerAgent.briefing'],
      ['branch-1', 'branch', null],
      ['branch-2', 'branch', null],
      ['execution-1', 'execution', 'ContentGeneratorAgent.linkedinVariants'],
      ['fallback-1', 'fallback', null],
    ]);
    expect(plan.edges).toEqual([
      { from: 'structuring-1', to: 'branch-1' },
      { from: 'branch-1', to: 'execution-1' },
      { from: 'structuring-1', to: 'branch-2' },
      { from: 'branch-2', to: 'execution-1' },
      { from: 'execution-1', to: 'fallback-1' },
    ]);
    const [strategy, b1, b2, writer, fallback] = plan.nodes;
    expect([b1.branch, b2.branch]).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    expect(b1.outputFacets).toEqual(['writerBrief', 'planKnobs']);
    expect(b1.instructions).toContain('Variant A should highlight team culture.');
    expect(writer.inputFacets).toEqual(expect.arrayContaining(['writerBrief', 'planKnobs']));
    expect(writer.outputSchema).toMatchObject({ type: 'object', required: ['copyVariants'] });
    expect(writer.provenance).toEqual(
      expect.arrayContaining([
        { facet: 'copyVariants', direction: 'output', pointer: '/properties/copyVariants' },
      ]),
    );
    expect(writer.instructions).toMatch(/copyVariants/);
    expect(strategy.rationale).toMatch(/StrategyManagerAgent.briefing produces/);
    expect(fallback).toMatchObject({ fallbackFor: 'execution-1', outputFacets: ['copyVariants'] });
    expect(plan.metadata).toMatchObject({
      plannerId: 'rule-based',
      plannerVersion: '1.0.0',
      determinism: 'full',
      tokens: { input: 0, output: 0 },
      costCents: 0,
      planVersionTag: 'v1',
      branchCount: 2,
      derivedCapabilities: [],
      normalizationInjected: false,
    });
    expect(plan.metadata.inputHash).toMatch(/^[0-9a-f]{64}$/);
    expect(PlanGraphSchema.parse(plan)).toEqual(plan);
  });

  it('plans three variants with QA required: three branches and a QA node that enforces the QA constraint', () => {
    const plan = planOf(planRuleBased(request(threeVariantsWithQa())));
    expect(shape(plan)).toEqual([
      ['structuring-1', 'structuring', 'StrategyManagerAgent.briefing'],
      ['branch-1', 'branch', null],
      ['branch-2', 'branch', null],
      ['branch-3', 'branch', null],
      ['execution-1', 'execution', 'ContentGeneratorAgent.linkedinVariants'],
      ['validation-1', 'validation', 'QualityAssuranceAgent.contentReview'],
      ['fallback-1', 'fallback', null],
    ]);
    expect(plan.nodes.find((n) => n.id === 'validation-1')?.enforces).toEqual(['qa_pass']);
    expect(plan.edges).toContainEqual({ from: 'execution-1', to: 'validation-1' });
    expect(plan.metadata.branchCount).toBe(3);
  });

  it('has no branch nodes for a single variant', () => {
    const one = sampleEnvelope((raw) => {
      raw.inputs.variantCount = 1;
      raw.outputContract.schema.properties.copyVariants.minItems = 1;
      raw.outputContract.schema.properties.copyVariants.maxItems = 1;
    });
    const plan = planOf(planRuleBased(request(one)));
    expect(plan.nodes.map((n) => n.kind)).toEqual(['structuring', 'execution', 'fallback']);
    expect(plan.metadata.branchCount).toBe(0);
  });

  it('lets the execution node enforce constraints on copyVariants', () => {
    const env = sampleEnvelope((raw) => {
      raw.outputContract.constraints = [
        { constraintId: 'two_variants', level: 'hard', expr: { '>=': [{ var: 'copyVariants.length' }, 2] } },
      ];
    });
    const plan = planOf(planRuleBased(request(env)));
    expect(plan.nodes.find((n) => n.id === 'execution-1')?.enforces).toEqual(['two_variants']);
    expect(plan.nodes.filter((n) => n.enforces?.length)).toHaveLength(1);
  });

  it('injects a transformation node only when no single capability produces the caller schema', () => {
    expect(
      planOf(planRuleBased(request(sampleEnvelope()))).nodes.some((n) => n.kind === 'transformation'),
    ).toBe(false);
    const env = sampleEnvelope((raw) => {
      raw.outputContract.schema.properties.strategicRationale = { type: 'object' };
    });
    const plan = planOf(planRuleBased(request(env)));
    const transformation = plan.nodes.find((n) => n.kind === 'transformation');
    expect(transformation).toMatchObject({
      id: 'transformation-1',
      outputFacets: ['copyVariants', 'strategicRationale'],
    });
    expect(transformation?.capabilityId).toBeUndefined();
    expect(plan.edges).toEqual(
      expect.arrayContaining([
        { from: 'execution-1', to: 'transformation-1' },
        { from: 'structuring-1', to: 'transformation-1' },
      ]),
    );
    expect(plan.metadata.normalizationInjected).toBe(true);
  });

  it('derives a capability from an agent whose facets cover a need no usable declared capability covers', () => {
    const rationale: CapabilityRegistration = {
      ...registrations[0],
      capabilityId: 'ContentGeneratorAgent.rationale',
      displayName: 'Rationale writer',
      inputContract: ['writerBrief'],
      outputContract: ['strategicRationale'],
    };
    const env = sampleEnvelope(
      (raw) =>
        (raw.policies = { planner: { selection: { forbid: ['ContentGeneratorAgent.linkedinVariants'] } } }),
    );
    const plan = planOf(planRuleBased(request(env, { capabilities: [...registrations, rationale] })));
    const derived = plan.nodes.find((n) => n.derived);
    expect(derived).toMatchObject({
      kind: 'execution',
      capabilityId: 'ContentGeneratorAgent.rationale',
      derivedFrom: 'ContentGeneratorAgent.rationale',
      agentId: 'ContentGeneratorAgent',
      outputFacets: ['copyVariants'],
    });
    // Inputs the agent declares on any of its capabilities, when something supplies them.
    expect(derived?.inputFacets).toEqual(['writerBrief', 'planKnobs', 'audienceProfile']);
    expect(plan.nodes.map((n) => n.capabilityId)).not.toContain('ContentGeneratorAgent.linkedinVariants');
    expect(plan.metadata.derivedCapabilities).toEqual(['ContentGeneratorAgent.rationale']);
    // An agent that does not declare the facet anywhere is no source: a structured error instead.
    const withoutWriter = registrations.filter((r) => !r.outputContract.includes('copyVariants'));
    expect(planRuleBased(request(sampleEnvelope(), { capabilities: withoutWriter }))).toMatchObject({
      code: 'PLANNER_NO_CAPABILITIES',
    });
  });

  it('honours prefer and avoid between two capabilities producing the same facet', () => {
    const writer = registrations.find((r) =>
      r.outputContract.includes('copyVariants'),
    ) as CapabilityRegistration;
    const twin: CapabilityRegistration = {
      ...writer,
      capabilityId: 'AltWriterAgent.variants',
      displayName: 'Alt writer',
    };
    const pick = (selection: Record<string, string[]>) =>
      planOf(
        planRuleBased(
          request(
            sampleEnvelope((raw) => (raw.policies = { planner: { selection } })),
            { capabilities: [...registrations, twin] },
          ),
        ),
      ).nodes.find((n) => n.kind === 'execution')?.capabilityId;
    expect(pick({ prefer: ['AltWriterAgent'] })).toBe('AltWriterAgent.variants');
    expect(pick({ avoid: ['ContentGeneratorAgent'] })).toBe('AltWriterAgent.variants');
    expect(pick({ avoid: ['AltWriterAgent'] })).toBe(writer.capabilityId);
  });

  it('weighs declared cost by the optimisation objective', () => {
    const writer = registrations.find((r) =>
      r.outputContract.includes('copyVariants'),
    ) as CapabilityRegistration;
    const cheap: CapabilityRegistration = {
      ...writer,
      capabilityId: 'CheapWriterAgent.variants',
      cost: { tier: 'economy', estimatedTokens: 1_000 },
      inputTraits: { formats: ['blog'] },
    };
    const premium: CapabilityRegistration = {
      ...writer,
      capabilityId: 'PremiumWriterAgent.variants',
      cost: { tier: 'premium', estimatedTokens: 15_000 },
      inputTraits: { formats: ['blog'] },
    };
    const pick = (objective: string) =>
      planOf(
        planRuleBased(
          request(
            sampleEnvelope(
              (raw) => (raw.policies = { brandVoice: 'inspiring', planner: { optimisation: { objective } } }),
            ),
            {
              capabilities: [...registrations.filter((r) => r !== writer), cheap, premium],
            },
          ),
        ),
      ).nodes.find((n) => n.kind === 'execution')?.capabilityId;
    expect(pick('token_efficiency')).toBe('CheapWriterAgent.variants');
    expect(pick('quality')).toBe('PremiumWriterAgent.variants');
  });

  it('honours forbid by leaving the capability out', () => {
    const plan = planOf(
      planRuleBased(
        request(
          sampleEnvelope(
            (raw) => (raw.policies = { planner: { selection: { forbid: ['StrategyManagerAgent'] } } }),
          ),
        ),
      ),
    );
    expect(plan.nodes.map((n) => n.capabilityId)).not.toContain('StrategyManagerAgent.briefing');
  });

  it('adds a validation node when topology.requiredKinds asks for one', () => {
    const plan = planOf(
      planRuleBased(
        request(
          sampleEnvelope(
            (raw) => (raw.policies = { planner: { topology: { requiredKinds: ['validation'] } } }),
          ),
        ),
      ),
    );
    expect(plan.nodes.find((n) => n.kind === 'validation')?.capabilityId).toBe(
      'QualityAssuranceAgent.contentReview',
    );
  });

  it('returns structured errors, never throws', async () => {
    const none = planRuleBased(
      request(sampleEnvelope(), {
        capabilities: registrations.filter(
          (r) => !['copyVariants'].some((f) => r.outputContract.includes(f) || r.inputContract.includes(f)),
        ),
      }),
    );
    expect(none).toMatchObject({
      code: 'PLANNER_NO_CAPABILITIES',
      retryable: false,
      details: { missingFacets: ['copyVariants'] },
    });
    const ghost = planRuleBased(
      request(
        sampleEnvelope((raw) => (raw.policies = { planner: { selection: { require: ['Ghost.agent'] } } })),
      ),
    );
    expect(ghost).toMatchObject({ code: 'PLANNER_NO_CAPABILITIES', details: { required: 'Ghost.agent' } });
    const noFacets = planRuleBased(
      request(sampleEnvelope((raw) => (raw.outputContract.schema = { type: 'object' }))),
    );
    expect(noFacets).toMatchObject({ code: 'PLANNER_INVALID_GOAL' });
    const broken = await new RuleBasedPlanner().plan({
      ...request(sampleEnvelope()),
      capabilities: [null as never],
    });
    expect(broken).toMatchObject({ code: 'PLANNER_INTERNAL', retryable: false });
  });
});
