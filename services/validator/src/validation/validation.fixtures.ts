import {
  normalizeEnvelope,
  type CapabilityRegistration,
  type ConstraintSpec,
  type PlanGraph,
  type PlanNode,
  type TaskEnvelope,
} from '@flex/contracts';

/** Test fixtures (not shipped behaviour): the reference agents' registrations, an envelope builder and the canonical plan. */
export const registration = (
  capabilityId: string,
  inputContract: string[],
  outputContract: string[],
): CapabilityRegistration =>
  ({
    capabilityId,
    agentType: 'ai',
    version: '1',
    displayName: capabilityId,
    summary: 's',
    inputContract,
    outputContract,
  }) as CapabilityRegistration;

export const STRATEGY = registration(
  'StrategyManagerAgent.briefing',
  ['objectiveBrief', 'audienceProfile', 'toneOfVoice', 'assetBundle'],
  ['writerBrief', 'planKnobs', 'strategicRationale'],
);
export const WRITER = registration(
  'ContentGeneratorAgent.linkedinVariants',
  ['writerBrief', 'planKnobs', 'toneOfVoice', 'audienceProfile'],
  ['copyVariants'],
);
export const QA = registration(
  'QualityAssuranceAgent.contentReview',
  ['copyVariants', 'writerBrief', 'qaRubric'],
  ['qaFindings', 'recommendationSet'],
);
export const REGISTRY: readonly CapabilityRegistration[] = [STRATEGY, WRITER, QA];

export interface EnvelopeOptions {
  constraints?: ConstraintSpec[];
  variantCount?: number;
  minItems?: number;
  maxItems?: number;
  policies?: Record<string, unknown>;
  inputs?: Record<string, unknown>;
  properties?: Record<string, unknown>;
}

export function envelopeWith(options: EnvelopeOptions = {}): TaskEnvelope {
  const copyVariants = {
    type: 'array',
    ...(options.minItems === undefined ? {} : { minItems: options.minItems }),
    ...(options.maxItems === undefined ? {} : { maxItems: options.maxItems }),
    items: {
      type: 'object',
      required: ['headline', 'body', 'callToAction'],
      properties: {
        headline: { type: 'string' },
        body: { type: 'string' },
        callToAction: { type: 'string' },
      },
    },
  };
  const raw = {
    objective: 'Create LinkedIn post variants promoting AwesomePoster',
    inputs: {
      channel: 'linkedin',
      ...(options.variantCount === undefined ? {} : { variantCount: options.variantCount }),
      ...options.inputs,
    },
    ...(options.policies ? { policies: options.policies } : {}),
    outputContract: {
      schema: {
        type: 'object',
        required: ['copyVariants'],
        properties: { copyVariants, ...options.properties },
      },
      ...(options.constraints ? { constraints: options.constraints } : {}),
    },
  };
  const normalized = normalizeEnvelope(raw);
  if (!normalized.ok)
    throw new Error(`fixture envelope must normalize: ${JSON.stringify(normalized.errors)}`);
  return normalized.envelope;
}

export const node = (over: Partial<PlanNode> & Pick<PlanNode, 'id' | 'kind'>): PlanNode => ({
  label: over.id,
  inputFacets: [],
  outputFacets: [],
  ...over,
});

export const strategyNode = node({
  id: 'strategy-1',
  kind: 'structuring',
  capabilityId: STRATEGY.capabilityId,
  inputFacets: ['objectiveBrief'],
  outputFacets: ['writerBrief', 'planKnobs', 'strategicRationale'],
});
export const writerNode = (enforces: string[] = []) =>
  node({
    id: 'execution-1',
    kind: 'execution',
    capabilityId: WRITER.capabilityId,
    inputFacets: ['writerBrief', 'planKnobs'],
    outputFacets: ['copyVariants'],
    enforces,
  });
export const qaNode = (enforces: string[] = []) =>
  node({
    id: 'validation-1',
    kind: 'validation',
    capabilityId: QA.capabilityId,
    inputFacets: ['copyVariants', 'writerBrief'],
    outputFacets: ['qaFindings', 'recommendationSet'],
    enforces,
  });

export function planOf(nodes: PlanNode[], edges: PlanGraph['edges'] = chain(nodes)): PlanGraph {
  return {
    planVersion: 1,
    nodes,
    edges,
    metadata: { plannerId: 'test', plannerVersion: '1', determinism: 'full', inputHash: 'a'.repeat(64) },
  };
}

export const chain = (nodes: PlanNode[]) => nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));

export const MIN_QA: ConstraintSpec = {
  constraintId: 'min_qa',
  level: 'hard',
  expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.8] },
};
export const EXACT_TWO: ConstraintSpec = {
  constraintId: 'exact_two',
  level: 'soft',
  expr: { '==': [{ var: 'copyVariants.length' }, 2] },
};
export const TONE_HINT: ConstraintSpec = {
  constraintId: 'tone_hint',
  level: 'informational',
  expr: { '!!': [{ var: 'toneOfVoice' }] },
  rationale: "Planner may prefer 'professional' for B2B.",
};
