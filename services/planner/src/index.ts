export { PlannerModule } from './planner.module';
export { planRuleBased, plannerInputHash, targetFacets, RULE_BASED_PLANNER, type PlannerInput, type PlannerResult } from './plan/rule-based.planner';
