import { CapabilityRegistrationSchema, type CapabilityRegistration } from './capability-registration';

/**
 * The reference agents of spec 003 §11 "Current Inventory" as registrations: data, like the facet
 * catalog. The reference agents register exactly these, and tests that plan over the reference
 * registry read them here rather than from the agents' code.
 */
export const STRATEGY_BRIEFING: CapabilityRegistration = CapabilityRegistrationSchema.parse({
  capabilityId: 'StrategyManagerAgent.briefing',
  version: '2025.11.1',
  displayName: 'Strategy Manager',
  summary: 'Plans rationale, writer brief, and knob configuration with asset analysis support.',
  inputTraits: {
    languages: ['en'],
    formats: ['linkedin_post'],
    strengths: ['asset_analysis', 'brief_writing', 'variant_planning'],
  },
  inputContract: ['objectiveBrief', 'audienceProfile', 'toneOfVoice', 'assetBundle'],
  outputContract: ['writerBrief', 'planKnobs', 'strategicRationale'],
  cost: { tier: 'standard', estimatedTokens: 0, costCents: 0 },
  heartbeat: { intervalSeconds: 15, timeoutSeconds: 45 },
  metadata: { owner: 'flex-reference', deterministic: true },
});

export const QA_CONTENT_REVIEW: CapabilityRegistration = CapabilityRegistrationSchema.parse({
  capabilityId: 'QualityAssuranceAgent.contentReview',
  version: '2025.11.1',
  displayName: 'Quality Assurance',
  summary:
    'Scores drafts for readability, clarity, objective fit, and policy risk; normalises recommendations.',
  inputTraits: {
    languages: ['en'],
    formats: ['linkedin_post'],
    strengths: ['readability_scoring', 'policy_risk_detection', 'recommendations'],
  },
  inputContract: ['copyVariants', 'writerBrief', 'qaRubric'],
  outputContract: ['qaFindings', 'recommendationSet'],
  cost: { tier: 'economy', estimatedTokens: 0, costCents: 0 },
  heartbeat: { intervalSeconds: 15, timeoutSeconds: 45 },
  metadata: { owner: 'flex-reference', deterministic: true },
});

export const COPYWRITER_LINKEDIN_VARIANTS: CapabilityRegistration = CapabilityRegistrationSchema.parse({
  capabilityId: 'ContentGeneratorAgent.linkedinVariants',
  version: '2025.11.1',
  displayName: 'Copywriter – LinkedIn Variants',
  summary: 'Generates 1–5 LinkedIn-ready variants with platform optimisations.',
  inputTraits: {
    languages: ['en'],
    formats: ['linkedin_post'],
    strengths: ['brand_voice_alignment', 'cta_generation', 'variant_directions'],
    limitations: ['no_paid_ads_claims'],
  },
  inputContract: ['writerBrief', 'planKnobs', 'toneOfVoice', 'audienceProfile'],
  outputContract: ['copyVariants'],
  cost: { tier: 'standard', estimatedTokens: 0, costCents: 0 },
  heartbeat: { intervalSeconds: 15, timeoutSeconds: 45 },
  metadata: { owner: 'flex-reference', deterministic: true },
});

/** Strategy, copywriter and QA, in that order. */
export const REFERENCE_INVENTORY: readonly CapabilityRegistration[] = [
  STRATEGY_BRIEFING,
  COPYWRITER_LINKEDIN_VARIANTS,
  QA_CONTENT_REVIEW,
];
