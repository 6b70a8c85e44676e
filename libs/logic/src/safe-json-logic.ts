import { validateJsonLogic } from '@flex/contracts';
import { EvaluationBudgetExceeded, Meter } from './evaluation-budget';
import { interpret } from './rule-interpreter';

/** Why a rule gave no value: refused by the validator, over its budget, or thrown by an operator. */
export type RuleErrorCode = 'invalid_rule' | 'evaluation_budget_exceeded' | 'evaluation_error';

export type RuleResult = { ok: true; value: unknown } | { ok: false; error: string; code: RuleErrorCode };

/**
 * Evaluate an untrusted JSONLogic rule over `data`, as json-logic-js would but under a budget.
 * The rule is checked against the operator allowlist and the size and cost caps first; then it
 * runs on `meter` (the process's budget unless given one; read it afterwards for what the
 * evaluation spent). Any failure is a result, never a throw, so callers can fail closed.
 */
export function evaluateRule(rule: unknown, data: unknown, meter: Meter = new Meter()): RuleResult {
  const issues = validateJsonLogic(rule, 'rule');
  if (issues.length > 0) {
    return { ok: false, code: 'invalid_rule', error: `${issues[0].path}: ${issues[0].message}` };
  }
  try {
    return { ok: true, value: interpret(rule, data, meter) };
  } catch (error) {
    if (error instanceof EvaluationBudgetExceeded) {
      return { ok: false, code: 'evaluation_budget_exceeded', error: error.message };
    }
    return {
      ok: false,
      code: 'evaluation_error',
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

export { truthy } from './value-operators';
