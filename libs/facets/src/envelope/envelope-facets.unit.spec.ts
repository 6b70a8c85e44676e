import {
  normalizeEnvelope,
  TaskEnvelopeSchema,
  type TaskEnvelope,
  type TaskEnvelopeInput,
} from '@flex/contracts';
import { envelopeFacets } from './envelope-facets';

const variantsContract = {
  schema: {
    type: 'object',
    required: ['copyVariants'],
    properties: {
      copyVariants: {
        type: 'array',
        minItems: 2,
        items: {
          type: 'object',
          required: ['headline', 'body', 'callToAction'],
          properties: {
            headline: { type: 'string' },
            body: { type: 'string' },
            callToAction: { type: 'string' },
          },
        },
      },
    },
  },
};

const companyProfile = {
  companyName: 'AwesomePoster',
  coreValue: 'Human-first automation',
  recentEvent: 'Summer retreat in Tahoe',
};
const linkedInInstructions = [
  'Variant A should highlight team culture.',
  'Variant B should highlight career growth opportunities.',
];
const akkuroInstructions = [
  'Highlight the new real-time audit trail feature.',
  'Avoid claims about replacing human reviewers.',
];
const akkuroObjective = "Generate LinkedIn post variants promoting Akkuro's AI compliance tooling launch.";
const akkuroInputs = {
  companyProfile: { name: 'Akkuro', positioning: 'AI compliance copilots for regulated teams' },
  toneOfVoice: ['confident', 'supportive'],
  contentBrief: 'Launch announcement focused on risk reduction.',
};

// Spec 003 §10.0.1 `envelope.json`, legacy policies normalized: brandVoice moved to the
// planner's directives, requiresHitlApproval: false dropped, outputContract.mode dropped.
const linkedIn = TaskEnvelopeSchema.parse({
  objective: 'Create LinkedIn post variants promoting AwesomePoster',
  inputs: {
    channel: 'linkedin',
    goal: 'attract_new_employees',
    variantCount: 2,
    contextBundles: [{ type: 'company_profile', payload: companyProfile }],
  },
  policies: { planner: { directives: { brandVoice: 'inspiring' } } },
  specialInstructions: linkedInInstructions,
  outputContract: {
    schema: {
      ...variantsContract.schema,
      properties: { copyVariants: { ...variantsContract.schema.properties.copyVariants, maxItems: 2 } },
    },
  },
});

// Spec 003 §10.1 sample, normalized: variantCount to the topology, persona to the directives,
// hitlRequiredFor to a runtime policy (irrelevant here, so left out).
const akkuro = TaskEnvelopeSchema.parse({
  objective: akkuroObjective,
  inputs: akkuroInputs,
  policies: { planner: { topology: { variantCount: 2 }, directives: { persona: 'marketer' } } },
  specialInstructions: akkuroInstructions,
  outputContract: variantsContract,
});

describe('envelopeFacets on the spec sample envelopes', () => {
  it('§10.0.1 envelope.json', () => {
    expect(envelopeFacets(linkedIn)).toEqual({
      values: {
        objectiveBrief: {
          objective: 'Create LinkedIn post variants promoting AwesomePoster',
          successCriteria: linkedInInstructions,
        },
        audienceProfile: { persona: 'job seeker', segments: ['prospective employees'] },
        toneOfVoice: 'inspiring',
        assetBundle: [{ type: 'data', payload: { company_profile: companyProfile } }],
        planKnobs: { variantCount: 2 },
      },
      sources: {
        objectiveBrief: 'objective, specialInstructions',
        audienceProfile: 'inputs.goal',
        toneOfVoice: 'policies.planner.directives.brandVoice',
        assetBundle: 'inputs.contextBundles',
        planKnobs: 'inputs.variantCount',
      },
      issues: [],
    });
  });

  it('§10.1 Akkuro sample', () => {
    expect(envelopeFacets(akkuro)).toEqual({
      values: {
        objectiveBrief: { objective: akkuroObjective, successCriteria: akkuroInstructions },
        audienceProfile: { persona: 'marketer', segments: [] },
        toneOfVoice: 'confident',
        planKnobs: { variantCount: 2 },
      },
      sources: {
        objectiveBrief: 'objective, specialInstructions',
        audienceProfile: 'policies.planner.directives.persona',
        toneOfVoice: 'inputs.toneOfVoice[0]',
        planKnobs: 'policies.planner.topology.variantCount',
      },
      issues: [],
    });
  });

  it.each([
    [
      '§10.0.1',
      linkedIn,
      {
        objective: linkedIn.objective,
        inputs: linkedIn.inputs,
        policies: { brandVoice: 'inspiring', requiresHitlApproval: false },
        specialInstructions: linkedInInstructions,
        outputContract: { mode: 'json_schema', schema: linkedIn.outputContract.schema },
      },
    ],
    [
      '§10.1',
      akkuro,
      {
        objective: akkuroObjective,
        inputs: akkuroInputs,
        policies: { persona: 'marketer', variantCount: 2, hitlRequiredFor: ['final_publish'] },
        specialInstructions: akkuroInstructions,
        outputContract: variantsContract,
      },
    ],
  ])('gives the same facets for the raw %s sample after normalizeEnvelope', (_label, normalized, raw) => {
    const result = normalizeEnvelope(raw);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(envelopeFacets(result.envelope)).toEqual(envelopeFacets(normalized));
  });
});

const envelope = (input: Partial<TaskEnvelopeInput>): TaskEnvelope =>
  TaskEnvelopeSchema.parse({
    objective: 'Launch the product.',
    outputContract: { schema: { type: 'object' } },
    ...input,
  });

type Row = [string, Partial<TaskEnvelopeInput>, string, unknown, string | undefined, string[]];

describe('envelopeFacets rules', () => {
  const link = { type: 'link', payload: { url: 'https://example.com/launch' } };
  it.each<Row>([
    ['objective alone', {}, 'objectiveBrief', { objective: 'Launch the product.' }, 'objective', []],
    [
      'success criteria too long fall back to the bare objective',
      { specialInstructions: ['x'.repeat(501)] },
      'objectiveBrief',
      { objective: 'Launch the product.' },
      'objective',
      ['objective, specialInstructions'],
    ],
    [
      'explicit objectiveBrief wins',
      { inputs: { objectiveBrief: { objective: 'Explicit objective' } } },
      'objectiveBrief',
      { objective: 'Explicit objective' },
      'inputs.objectiveBrief',
      [],
    ],
    [
      'tone: first accepted value of a list, case-insensitive',
      { inputs: { toneOfVoice: ['Shouty', ' Supportive '] } },
      'toneOfVoice',
      'supportive',
      'inputs.toneOfVoice[1]',
      ['inputs.toneOfVoice[0]'],
    ],
    [
      'tone: a string',
      { inputs: { toneOfVoice: 'friendly' } },
      'toneOfVoice',
      'friendly',
      'inputs.toneOfVoice',
      [],
    ],
    [
      'tone: brand voice when no input tone is accepted',
      {
        inputs: { toneOfVoice: 'grumpy' },
        policies: { planner: { directives: { brandVoice: 'Professional' } } },
      },
      'toneOfVoice',
      'professional',
      'policies.planner.directives.brandVoice',
      ['inputs.toneOfVoice'],
    ],
    [
      'tone: a brand-voice list',
      { policies: { planner: { directives: { brandVoice: ['loud', 'Bold'] } } } },
      'toneOfVoice',
      'bold',
      'policies.planner.directives.brandVoice[1]',
      ['policies.planner.directives.brandVoice[0]'],
    ],
    [
      'tone: none accepted',
      { inputs: { toneOfVoice: ['grumpy'] } },
      'toneOfVoice',
      undefined,
      undefined,
      ['inputs.toneOfVoice[0]'],
    ],
    [
      'audience: full profile',
      { inputs: { audienceProfile: { persona: 'CFO', segments: ['fintech'], regions: ['EU'] } } },
      'audienceProfile',
      { persona: 'CFO', segments: ['fintech'], regions: ['EU'] },
      'inputs.audienceProfile',
      [],
    ],
    [
      'audience: a profile without segments',
      { inputs: { audience: { persona: 'CFO' } } },
      'audienceProfile',
      { persona: 'CFO', segments: [] },
      'inputs.audience',
      [],
    ],
    [
      'audience: persona text',
      { inputs: { persona: 'compliance officer' } },
      'audienceProfile',
      { persona: 'compliance officer', segments: [] },
      'inputs.persona',
      [],
    ],
    [
      'audience: a bad one falls through to the goal',
      { inputs: { audience: 7, goal: 'grow_sales_pipeline' } },
      'audienceProfile',
      { persona: 'prospective customer', segments: ['prospective customers'] },
      'inputs.goal',
      ['inputs.audience'],
    ],
    [
      'audience: a goal that says nothing about people',
      { inputs: { goal: 'announce_launch' } },
      'audienceProfile',
      undefined,
      undefined,
      [],
    ],
    ['assets: a valid list', { inputs: { assets: [link] } }, 'assetBundle', [link], 'inputs.assets', []],
    [
      'assets: an invalid list falls back',
      { inputs: { assetBundle: [{ type: 'link', payload: {} }], contextBundles: [link] } },
      'assetBundle',
      [link],
      'inputs.contextBundles',
      ['inputs.assetBundle'],
    ],
    [
      'knobs: the topology wins over inputs',
      { inputs: { variantCount: 4 }, policies: { planner: { topology: { variantCount: 3 } } } },
      'planKnobs',
      { variantCount: 3 },
      'policies.planner.topology.variantCount',
      [],
    ],
    [
      'knobs: an out-of-range count is dropped, other knobs stay',
      { inputs: { variantCount: 9, ctaFocus: 'book a demo', length: 'short' } },
      'planKnobs',
      { ctaFocus: 'book a demo', length: 'short' },
      'inputs.ctaFocus, inputs.length',
      ['inputs.variantCount'],
    ],
    [
      'knobs: from directives and inputs.planKnobs',
      {
        inputs: { planKnobs: { length: 'long' } },
        policies: { planner: { directives: { ctaFocus: 'apply now' } } },
      },
      'planKnobs',
      { ctaFocus: 'apply now', length: 'long' },
      'policies.planner.directives.ctaFocus, inputs.planKnobs.length',
      [],
    ],
    ['knobs: none', {}, 'planKnobs', undefined, undefined, []],
    [
      'qaRubric',
      { inputs: { qaRubric: { checks: ['clarity'], thresholds: { overall: 0.8 } } } },
      'qaRubric',
      { checks: ['clarity'], thresholds: { overall: 0.8 } },
      'inputs.qaRubric',
      [],
    ],
    [
      'qaRubric: invalid',
      { inputs: { qaRubric: { checks: ['vibes'], thresholds: {} } } },
      'qaRubric',
      undefined,
      undefined,
      ['inputs.qaRubric'],
    ],
    [
      'a facet-named input: writerBrief',
      { inputs: { writerBrief: { angle: 'Trust', keyPoints: ['audit trail'], constraints: [] } } },
      'writerBrief',
      { angle: 'Trust', keyPoints: ['audit trail'], constraints: [] },
      'inputs.writerBrief',
      [],
    ],
    [
      'a facet-named input that does not validate',
      { inputs: { copyVariants: [{ headline: 'only a headline' }] } },
      'copyVariants',
      undefined,
      undefined,
      ['inputs.copyVariants'],
    ],
    [
      'an output-only facet cannot come from the envelope',
      { inputs: { qaFindings: { overallScore: 1 } } },
      'qaFindings',
      undefined,
      undefined,
      ['inputs.qaFindings'],
    ],
  ])('%s', (_label, input, facet, value, source, issuePaths) => {
    const result = envelopeFacets(envelope(input));
    expect(result.values[facet]).toEqual(value);
    expect(result.sources[facet]).toBe(source);
    expect(result.issues.filter((i) => i.facet === facet).map((i) => i.path)).toEqual(issuePaths);
  });

  it('names why a value was refused', () => {
    const [issue] = envelopeFacets(envelope({ inputs: { qaFindings: {}, toneOfVoice: 'grumpy' } })).issues;
    expect(issue).toMatchObject({
      facet: 'toneOfVoice',
      path: 'inputs.toneOfVoice',
      code: 'INVALID_FACET_VALUE',
    });
    expect(issue.errors).toEqual([
      expect.objectContaining({ facet: 'toneOfVoice', pointer: '/toneOfVoice', keyword: 'enum' }),
    ]);
    expect(envelopeFacets(envelope({ inputs: { qaFindings: {} } })).issues).toEqual([
      expect.objectContaining({ facet: 'qaFindings', code: 'DIRECTION_MISMATCH', errors: [] }),
    ]);
  });
});

describe('envelopeFacets is pure and deterministic', () => {
  it('gives equal results for equal envelopes and copies what it returns', () => {
    const envelope = structuredClone(linkedIn);
    const first = envelopeFacets(envelope);
    expect(envelopeFacets(structuredClone(linkedIn))).toEqual(first);
    (first.values.assetBundle as unknown[]).push('changed');
    expect(envelope.inputs.contextBundles).toHaveLength(1);
    expect(envelopeFacets(envelope)).not.toBe(first);
  });

  it('works out a frozen envelope once and shares the answer, frozen', () => {
    const frozen = structuredClone(linkedIn);
    deepFreeze(frozen);
    const first = envelopeFacets(frozen);
    expect(first).toEqual(envelopeFacets(structuredClone(linkedIn)));
    expect(envelopeFacets(frozen)).toBe(first);
    expect(Object.isFrozen(first.values.assetBundle)).toBe(true);
    expect(() => (first.values.assetBundle as unknown[]).push('changed')).toThrow(/not extensible/);
    // Another frozen envelope, equal or not, has its own answer.
    const other = structuredClone(linkedIn);
    deepFreeze(other);
    expect(envelopeFacets(other)).not.toBe(first);
  });
});

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  Object.freeze(value);
  Object.values(value).forEach(deepFreeze);
}
