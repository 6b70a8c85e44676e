export { evaluateRule, truthy, type RuleResult } from './safe-json-logic';
export {
  evaluateConstraints,
  constraintIdOf,
  CONSTRAINT_WEIGHTS,
  type ConstraintEvaluation,
  type ConstraintOutcome,
} from './constraints';
export { rootOf, rulePaths, ruleRoots } from './rule-paths';
