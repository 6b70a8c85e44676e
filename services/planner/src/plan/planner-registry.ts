import type { FlexConfig } from '@flex/runtime';
import { LlmPlanner, type LlmPlannerOptions } from '../llm/llm.planner';
import type { Planner } from './planner';
import { RuleBasedPlanner } from './rule-based.planner';

/** The planners Flex knows (spec 004 "Planner Registry"), with their determinism and cost model. */
export const PLANNER_REGISTRY = {
  'rule-based': { determinism: 'full', costModel: { baseCents: 0, perCallCents: 0 } },
  llm: { determinism: 'structural', costModel: { baseCents: 0, perTokenCents: 0.003 } },
} as const;

/**
 * The planner the configuration asks for: `FLEX_PLANNER=llm` only when `FLEX_LLM_BASE_URL` is set
 * (with the rule-based planner as its fallback), else the rule-based planner.
 */
export function plannerFromConfig(config: FlexConfig, options: Partial<LlmPlannerOptions> = {}): Planner {
  const ruleBased = new RuleBasedPlanner();
  if (config.FLEX_PLANNER !== 'llm' || !config.FLEX_LLM_BASE_URL) return ruleBased;
  return new LlmPlanner({
    baseUrl: config.FLEX_LLM_BASE_URL,
    apiKey: config.FLEX_LLM_API_KEY,
    model: config.FLEX_LLM_MODEL ?? 'gpt-4o-mini',
    ...options,
  });
}
