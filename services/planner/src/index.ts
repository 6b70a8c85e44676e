export { PlannerModule } from './planner.module';
export { RuleBasedPlanner, planRuleBased, RULE_BASED_PLANNER } from './plan/rule-based.planner';
export { LlmPlanner, LLM_PLANNER, type LlmPlannerOptions } from './llm/llm.planner';
export { plannerFromConfig, PLANNER_REGISTRY } from './plan/planner-registry';
export { isPlannerError, type Planner, type PlannerRequest, type ReplanContext } from './plan/planner';
export { normalizedPlannerInput, plannerInputHash, planHash } from './plan/planner-input';
export { targetFacets } from './plan/targets';
export { plannerReplayAdapter, type PlannerReplaySettings } from './plan/planner.replay';
