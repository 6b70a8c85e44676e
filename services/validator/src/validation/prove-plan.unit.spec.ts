import { bindContract } from '@flex/proof';
import type {
  CapabilityRegistration,
  DiagnosticsBundle,
  PlanDiagnostic,
  PlanGraph,
  TaskEnvelope,
} from '@flex/contracts';
import { provePlan } from './prove-plan';
import {
  EXACT_TWO,
  MIN_QA,
  QA,
  REGISTRY,
  STRATEGY,
  TONE_HINT,
  WRITER,
  envelopeWith,
  node,
  planOf,
  qaNode,
  strategyNode,
  writerNode,
} from './validation.fixtures';

interface Case {
  name: string;
  envelope: TaskEnvelope;
  plan: PlanGraph;
  registry?: readonly CapabilityRegistration[];
  status: DiagnosticsBundle['status'];
  /** The plan is proved as given, not as the planner would bind it. */
  unbound?: boolean;
  score?: number;
  expect: Array<Partial<PlanDiagnostic>>;
}

/** strategy-1 → branch-1..n → execution-1, as the planner expands variants. */
function branched(count: number): PlanGraph {
  const branches = Array.from({ length: count }, (_, index) =>
    node({
      id: `branch-${index + 1}`,
      kind: 'branch',
      inputFacets: ['writerBrief', 'planKnobs'],
      outputFacets: ['writerBrief', 'planKnobs'],
      branch: { index, count },
    }),
  );
  const edges = branches.flatMap((b) => [
    { from: 'strategy-1', to: b.id },
    { from: b.id, to: 'execution-1' },
  ]);
  return planOf([strategyNode, ...branches, writerNode()], edges);
}

const all = (b: DiagnosticsBundle) => [...b.failures, ...b.warnings, ...b.infos];
/** `qaFindings.overallScore >= 0.8` over a score in [0, 1]: the proof cannot decide it; runtime checks do. */
const MIN_QA_AT_RUN_TIME = {
  severity: 'informational',
  status: 'unknown',
  cause: 'advisory',
  constraintId: 'min_qa',
  details: { verdict: 'unknown', obligation: 'constraint' },
} as const;
const sound = planOf([strategyNode, writerNode(), qaNode(['min_qa'])]);

// Spec 000 §5.9.3–5.9.5, one row per diagnostic cause, from the spec's own examples where it has them.
const CASES: Case[] = [
  {
    name: 'min_qa hard, no QA node → missing_producer naming the QA capability',
    envelope: envelopeWith({ constraints: [MIN_QA] }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'rejected',
    score: 0,
    expect: [
      {
        severity: 'hard',
        status: 'unsatisfied',
        cause: 'missing_producer',
        constraint: 'qaFindings.overallScore >= 0.8',
        constraintId: 'min_qa',
        nodeId: 'execution-1',
        capabilityId: 'QualityAssuranceAgent.contentReview',
        suggestion: 'Insert QualityAssuranceAgent.contentReview before execution-1.',
      },
    ],
  },
  {
    name: 'min_qa hard, QA node present but nobody enforces it → missing_enforcer on the last producer',
    envelope: envelopeWith({ constraints: [MIN_QA] }),
    plan: planOf([strategyNode, writerNode(), qaNode()]),
    status: 'rejected',
    expect: [
      {
        severity: 'hard',
        cause: 'missing_enforcer',
        constraintId: 'min_qa',
        nodeId: 'validation-1',
        capabilityId: QA.capabilityId,
      },
      MIN_QA_AT_RUN_TIME,
    ],
  },
  {
    name: 'min_qa enforced by a node that never sees qaFindings → missing_enforcer',
    envelope: envelopeWith({ constraints: [MIN_QA] }),
    plan: planOf([strategyNode, writerNode(['min_qa']), qaNode()]),
    status: 'rejected',
    expect: [
      {
        cause: 'missing_enforcer',
        constraintId: 'min_qa',
        details: { reason: 'missing_enforcer', facets: ['qaFindings'], listedBy: ['execution-1'] },
      },
      MIN_QA_AT_RUN_TIME,
    ],
  },
  {
    name: 'min_qa produced and enforced by the QA node → accepted, score 1, the run-time check named',
    envelope: envelopeWith({ constraints: [MIN_QA] }),
    plan: sound,
    status: 'accepted_with_findings',
    score: 1,
    expect: [MIN_QA_AT_RUN_TIME],
  },
  {
    name: 'exact_two soft with three variants planned → accepted_with_findings, unsatisfied_soft, score (1·1 + 0.5·0) / 1.5',
    envelope: envelopeWith({ constraints: [MIN_QA, EXACT_TWO], variantCount: 3, maxItems: 5 }),
    plan: sound,
    status: 'accepted_with_findings',
    score: 0.666667,
    expect: [
      {
        severity: 'soft',
        status: 'unsatisfied',
        cause: 'unsatisfied_soft',
        constraint: 'copyVariants.length == 2',
        constraintId: 'exact_two',
        suggestion: 'Expand branch node to produce exactly 2 variants.',
        details: { verdict: 'refuted', obligation: 'constraint' },
      },
      MIN_QA_AT_RUN_TIME,
    ],
  },
  {
    name: 'exact_two soft with two variants planned → accepted (proven: the plan asks for exactly two)',
    envelope: envelopeWith({ constraints: [MIN_QA, EXACT_TWO], variantCount: 2 }),
    plan: sound,
    status: 'accepted_with_findings',
    score: 1,
    expect: [MIN_QA_AT_RUN_TIME],
  },
  {
    name: 'a soft constraint on a facet nobody produces → non-blocking guidance',
    envelope: envelopeWith({ constraints: [{ ...MIN_QA, constraintId: 'nice_qa', level: 'soft' }] }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'accepted_with_findings',
    score: 0,
    expect: [
      {
        severity: 'soft',
        cause: 'unsatisfied_soft',
        constraintId: 'nice_qa',
        suggestion: 'Insert QualityAssuranceAgent.contentReview before execution-1.',
      },
    ],
  },
  {
    name: 'informational tone_hint → one advisory info with status unknown, score untouched',
    envelope: envelopeWith({ constraints: [MIN_QA, TONE_HINT] }),
    plan: sound,
    status: 'accepted_with_findings',
    score: 1,
    expect: [
      MIN_QA_AT_RUN_TIME,
      {
        severity: 'informational',
        status: 'unknown',
        cause: 'advisory',
        constraintId: 'tone_hint',
        constraint: '!!(toneOfVoice)',
        details: { note: "Planner may prefer 'professional' for B2B.", unproduced: ['toneOfVoice'] },
      },
    ],
  },
  {
    name: 'a hard count constraint binds the plan: the caller asks for 3, the contract for exactly 2 → the writer is asked for 2, proven',
    envelope: envelopeWith({ constraints: [{ ...EXACT_TWO, level: 'hard' }], variantCount: 3 }),
    plan: planOf([strategyNode, writerNode(['exact_two'])]),
    status: 'accepted',
    expect: [],
  },
  {
    name: "hard constraint the plan's bound count contradicts → schema_incompatible naming the count to produce",
    envelope: envelopeWith({ constraints: [{ ...EXACT_TWO, level: 'hard' }], variantCount: 3 }),
    plan: planOf([
      strategyNode,
      {
        ...writerNode(['exact_two']),
        bindings: {
          inputs: { planKnobs: { variantCount: 3 } },
          outputs: { copyVariants: { type: 'array', minItems: 3, maxItems: 3 } },
        },
      },
    ]),
    unbound: true,
    status: 'rejected',
    expect: [
      {
        severity: 'hard',
        cause: 'schema_incompatible',
        constraintId: 'exact_two',
        suggestion: 'Expand branch node to produce exactly 2 variants.',
        details: { verdict: 'refuted' },
      },
      {
        severity: 'informational',
        status: 'unknown',
        constraintId: 'schema/copyVariants',
        details: { verdict: 'unknown', keywords: ['bindings'] },
      },
    ],
  },
  {
    name: 'hard constraint on a facet only the envelope supplies, and it holds → accepted without an enforcer',
    envelope: envelopeWith({
      constraints: [
        { constraintId: 'tone', level: 'hard', expr: { '==': [{ var: 'toneOfVoice' }, 'inspiring'] } },
      ],
      inputs: { toneOfVoice: 'Inspiring' },
    }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'accepted',
    score: 1,
    expect: [],
  },
  {
    name: 'hard constraint on a facet only the envelope supplies, and it fails → schema_incompatible',
    envelope: envelopeWith({
      constraints: [
        { constraintId: 'tone', level: 'hard', expr: { '==': [{ var: 'toneOfVoice' }, 'playful'] } },
      ],
      inputs: { toneOfVoice: 'inspiring' },
    }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'rejected',
    expect: [{ cause: 'schema_incompatible', constraintId: 'tone' }],
  },
  {
    name: 'variantCount 3 against copyVariants.maxItems 2 → schema_incompatible naming both numbers',
    envelope: envelopeWith({ variantCount: 3, maxItems: 2 }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'rejected',
    expect: [
      {
        severity: 'hard',
        cause: 'schema_incompatible',
        constraintId: 'policy.variantCount',
        constraint: 'variantCount 3 exceeds copyVariants.maxItems 2',
        nodeId: 'execution-1',
        details: {
          check: 'policy_schema',
          property: 'copyVariants',
          variantCount: 3,
          maxItems: 2,
          source: 'inputs.variantCount',
        },
      },
    ],
  },
  {
    name: "a plan whose branches reconcile the caller's count with the schema → accepted",
    envelope: envelopeWith({ variantCount: 3, maxItems: 2 }),
    plan: branched(2),
    status: 'accepted',
    expect: [],
  },
  {
    name: "a plan branching beyond copyVariants.maxItems → schema_incompatible naming the plan's count",
    envelope: envelopeWith({ variantCount: 2, maxItems: 2 }),
    plan: branched(3),
    status: 'rejected',
    expect: [
      {
        cause: 'schema_incompatible',
        constraint: 'variantCount 3 exceeds copyVariants.maxItems 2',
        details: { source: "the plan's 3 branch node(s)" },
      },
    ],
  },
  {
    name: 'topology.variantCount 1 against copyVariants.minItems 2 → schema_incompatible',
    envelope: envelopeWith({ minItems: 2, policies: { planner: { topology: { variantCount: 1 } } } }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'rejected',
    expect: [{ cause: 'schema_incompatible', constraint: 'variantCount 1 is below copyVariants.minItems 2' }],
  },
  {
    name: 'a capability that is not registered → missing_producer',
    envelope: envelopeWith(),
    plan: planOf([strategyNode, writerNode()]),
    registry: [STRATEGY],
    status: 'rejected',
    expect: [
      {
        cause: 'missing_producer',
        constraintId: 'structure.capability_unavailable',
        nodeId: 'execution-1',
        capabilityId: WRITER.capabilityId,
      },
    ],
  },
  {
    name: 'an input facet nothing upstream produces → missing_producer with the producing capability',
    envelope: envelopeWith(),
    plan: planOf([writerNode()]),
    status: 'rejected',
    expect: [
      {
        cause: 'missing_producer',
        constraintId: 'facet.planKnobs',
        nodeId: 'execution-1',
        capabilityId: STRATEGY.capabilityId,
      },
      {
        cause: 'missing_producer',
        constraintId: 'facet.writerBrief',
        nodeId: 'execution-1',
        suggestion: 'Insert StrategyManagerAgent.briefing before execution-1.',
      },
    ],
  },
  {
    name: 'an input facet the envelope supplies needs no producer',
    envelope: envelopeWith({ variantCount: 2 }),
    plan: planOf([node({ ...writerNode(), inputFacets: ['planKnobs', 'toneOfVoice'] })]),
    registry: REGISTRY,
    status: 'rejected',
    expect: [{ cause: 'missing_producer', constraintId: 'facet.toneOfVoice', nodeId: 'execution-1' }],
  },
  {
    name: 'an output-only facet used as an input → direction mismatch',
    envelope: envelopeWith(),
    plan: planOf([
      strategyNode,
      writerNode(),
      node({
        ...qaNode(),
        id: 'reviser-1',
        kind: 'execution',
        inputFacets: ['qaFindings'],
        outputFacets: ['copyVariants'],
      }),
    ]),
    status: 'rejected',
    expect: [
      { cause: 'missing_producer', constraintId: 'facet.qaFindings', nodeId: 'reviser-1' },
      {
        cause: 'schema_incompatible',
        constraintId: 'structure.facet_direction',
        nodeId: 'reviser-1',
        details: { check: 'facet_direction', facet: 'qaFindings', direction: 'input' },
      },
    ],
  },
  {
    name: 'an input-only facet used as an output, and an unknown facet → schema_incompatible',
    envelope: envelopeWith(),
    plan: planOf([
      strategyNode,
      node({ ...writerNode(), outputFacets: ['copyVariants', 'toneOfVoice', 'sparkle'] }),
    ]),
    status: 'rejected',
    expect: [
      {
        constraintId: 'structure.facet_direction',
        nodeId: 'execution-1',
        details: { check: 'facet_direction', facet: 'toneOfVoice', direction: 'output' },
      },
      {
        constraintId: 'structure.unknown_facet',
        nodeId: 'execution-1',
        details: { check: 'unknown_facet', facet: 'sparkle' },
      },
    ],
  },
  {
    name: 'a derived node whose agent declares its facets → accepted',
    envelope: envelopeWith(),
    plan: planOf([
      strategyNode,
      node({
        ...writerNode(),
        capabilityId: 'ContentGeneratorAgent.shortVariants',
        derived: true,
        derivedFrom: WRITER.capabilityId,
      }),
    ]),
    status: 'accepted',
    expect: [],
  },
  {
    name: 'a derived node using facets its agent does not declare → rejected',
    envelope: envelopeWith(),
    plan: planOf([
      strategyNode,
      node({
        ...writerNode(),
        capabilityId: 'ContentGeneratorAgent.review',
        derived: true,
        outputFacets: ['copyVariants', 'qaFindings'],
      }),
    ]),
    status: 'rejected',
    expect: [
      {
        constraintId: 'structure.derived_facets',
        nodeId: 'execution-1',
        details: { check: 'derived_facets', agent: 'ContentGeneratorAgent', uncovered: ['qaFindings'] },
      },
    ],
  },
  {
    name: 'a derived node on an agent that is not registered → rejected',
    envelope: envelopeWith(),
    plan: planOf([strategyNode, node({ ...writerNode(), capabilityId: 'GhostAgent.write', derived: true })]),
    status: 'rejected',
    expect: [{ constraintId: 'structure.derived_agent', cause: 'missing_producer', nodeId: 'execution-1' }],
  },
  {
    name: 'a cycle',
    envelope: envelopeWith(),
    plan: planOf(
      [strategyNode, writerNode()],
      [
        { from: 'strategy-1', to: 'execution-1' },
        { from: 'execution-1', to: 'strategy-1' },
      ],
    ),
    status: 'rejected',
    expect: [
      {
        constraintId: 'structure.cycle',
        constraint: 'the plan has a cycle: strategy-1 → execution-1 → strategy-1',
      },
    ],
  },
  {
    name: 'a dangling edge and a duplicate node id',
    envelope: envelopeWith(),
    plan: planOf(
      [strategyNode, writerNode(), strategyNode],
      [
        { from: 'strategy-1', to: 'execution-1' },
        { from: 'execution-1', to: 'publish-1' },
      ],
    ),
    status: 'rejected',
    expect: [
      { constraintId: 'structure.dangling_edge', nodeId: 'publish-1' },
      { constraintId: 'structure.duplicate_node', nodeId: 'strategy-1' },
    ],
  },
  {
    name: 'an unreachable node and an agent node without capability',
    envelope: envelopeWith(),
    plan: planOf(
      [strategyNode, writerNode(), node({ id: 'stray-1', kind: 'validation' })],
      [{ from: 'strategy-1', to: 'execution-1' }],
    ),
    status: 'rejected',
    expect: [
      { constraintId: 'structure.node_incomplete', nodeId: 'stray-1' },
      { constraintId: 'structure.unreachable', nodeId: 'stray-1' },
    ],
  },
  {
    name: 'topology: maxDepth, requiredKinds, forbiddenKinds',
    envelope: envelopeWith({
      policies: {
        planner: { topology: { maxDepth: 1, requiredKinds: ['branch'], forbiddenKinds: ['structuring'] } },
      },
    }),
    plan: planOf([strategyNode, writerNode()]),
    status: 'rejected',
    expect: [
      { constraintId: 'structure.forbidden_kind', nodeId: 'strategy-1' },
      { constraintId: 'structure.max_depth', constraint: 'plan depth 2 exceeds maxDepth 1' },
      { constraintId: 'structure.required_kind', suggestion: 'Add a branch node.' },
    ],
  },
];

describe('validator: every diagnostic cause (spec 000 §5.9)', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    // Plans as the planner hands them over: the caller's contract bound into the producers.
    const bundle = provePlan(
      c.unbound ? c.plan : bindContract(c.plan, c.envelope),
      c.envelope,
      c.registry ?? REGISTRY,
    );
    expect(bundle.status).toBe(c.status);
    if (c.score !== undefined) expect(bundle.satisfactionScore).toBeCloseTo(c.score, 6);
    expect(all(bundle)).toHaveLength(c.expect.length);
    all(bundle).forEach((d, i) => expect(d).toMatchObject(c.expect[i]));
  });

  it('an informational constraint changes neither the verdict, the score nor the other findings', () => {
    const envelope = envelopeWith({ constraints: [MIN_QA, EXACT_TWO], variantCount: 3, maxItems: 5 });
    const withTone = {
      ...envelope,
      outputContract: { ...envelope.outputContract, constraints: [MIN_QA, EXACT_TWO, TONE_HINT] },
    };
    const without = provePlan(bindContract(sound, envelope), envelope, REGISTRY);
    const withInfo = provePlan(bindContract(sound, withTone), withTone, REGISTRY);
    expect({ ...withInfo, infos: without.infos }).toEqual(without);
    expect(withInfo.infos.filter((d) => d.constraintId === 'tone_hint').map((d) => d.cause)).toEqual([
      'advisory',
    ]);
    expect(withInfo.infos.filter((d) => d.constraintId !== 'tone_hint')).toEqual(without.infos);
  });

  it('reads constraints inside array operators relative to each item', () => {
    const everyHasCta = {
      constraintId: 'cta',
      level: 'hard' as const,
      expr: { all: [{ var: 'copyVariants' }, { '!!': [{ var: 'callToAction' }] }] },
    };
    const bundle = provePlan(
      planOf([strategyNode, writerNode(['cta'])]),
      envelopeWith({ constraints: [everyHasCta] }),
      REGISTRY,
    );
    expect(bundle.status).toBe('accepted');
    expect(bundle.verdict).toBe('proven');
  });
});
