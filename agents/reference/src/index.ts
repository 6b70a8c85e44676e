export { referenceAgents, startReferenceAgents, type ReferenceAgents, type StartReferenceAgentsOptions } from './start-reference-agents';
export { strategyManagerAgent, buildBriefing, type Briefing, type BriefingInputs } from './strategy-manager';
export { contentGeneratorAgent, writeVariants, type VariantInputs } from './content-generator';
export { qualityAssuranceAgent, reviewCopy, type Review, type ReviewInputs } from './quality-assurance';
export type * from './facet-values';
