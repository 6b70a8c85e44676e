export {
  referenceAgents,
  llmReferenceAgents,
  startReferenceAgents,
  type ReferenceAgents,
  type StartReferenceAgentsOptions,
} from './start-reference-agents';
export { strategyManagerAgent, buildBriefing, type Briefing, type BriefingInputs } from './strategy-manager';
export { contentGeneratorAgent, writeVariants, type VariantInputs } from './content-generator';
export { qualityAssuranceAgent, reviewCopy, type Review, type ReviewInputs } from './quality-assurance';
export type * from './facet-values';
export { withLlm, FALLBACK_MODEL, type LlmBrief } from './llm/llm-agent';
export { llmConfigFrom, LlmConfigError, DEFAULT_LLM_MODEL, type LlmConfig } from './llm/llm.config';
export {
  completeStructured,
  LlmUnavailableError,
  retryAfterMs,
  type ChatMessage,
  type StructuredRequest,
  type LlmUsage,
} from './llm/chat-completions';
export { REFERENCE_BRIEFS } from './llm/reference-briefs';
