export { evaluateRule, truthy, type RuleErrorCode, type RuleResult } from './safe-json-logic';
export {
  configureEvaluationBudget,
  currentEvaluationBudget,
  DEFAULT_EVALUATION_BUDGET,
  EvaluationBudgetExceeded,
  Meter,
  type BudgetResource,
  type EvaluationBudget,
} from './evaluation-budget';
export { interpret } from './rule-interpreter';
export {
  evaluateConstraints,
  constraintIdOf,
  CONSTRAINT_WEIGHTS,
  type ConstraintEvaluation,
  type ConstraintOutcome,
} from './constraints';
export { rootOf, rulePaths, ruleRoots } from './rule-paths';
