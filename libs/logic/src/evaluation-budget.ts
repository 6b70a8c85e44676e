import { LIMITS } from '@flex/contracts';

/**
 * What one evaluation of an untrusted rule may spend. A rule is data from a client or a policy
 * author and the data it reads comes from agents: json-logic-js cannot be interrupted, so the
 * interpreter counts as it goes and stops the evaluation once either count is over.
 */
export interface EvaluationBudget {
  /** Operators and operands evaluated, texts read, array items searched. */
  readonly operations: number;
  /** Array items and text characters created (conversions of arrays to text included). */
  readonly items: number;
}

/** The resource an evaluation ran out of. */
export type BudgetResource = keyof EvaluationBudget;

/** The budget every evaluation gets unless told otherwise (the limits of `@flex/contracts`). */
export const DEFAULT_EVALUATION_BUDGET: EvaluationBudget = Object.freeze({
  operations: LIMITS.jsonLogicMaxOperations,
  items: LIMITS.jsonLogicMaxItems,
});

let processBudget: EvaluationBudget = DEFAULT_EVALUATION_BUDGET;

/**
 * Sets the budget of every evaluation in this process that is not given one. Called once at
 * start from the configuration (`FLEX_LOGIC_MAX_OPERATIONS`, `FLEX_LOGIC_MAX_ITEMS`), before any
 * rule runs; the pure code that evaluates rules cannot read configuration itself.
 */
export function configureEvaluationBudget(budget: EvaluationBudget): void {
  processBudget = Object.freeze({ operations: budget.operations, items: budget.items });
}

/** The budget evaluations get by default (see {@link configureEvaluationBudget}). */
export const currentEvaluationBudget = (): EvaluationBudget => processBudget;

/** A place in a rule: the key that leads to it from its parent place (none for the rule itself). */
export interface RulePlace {
  readonly parent?: RulePlace;
  readonly key?: string | number;
}

/** The JSON pointer of a place in its rule ('' for the rule itself). */
export function pointerOf(place: RulePlace | undefined): string {
  const keys: string[] = [];
  for (let p = place; p?.key !== undefined; p = p.parent) keys.push(String(p.key));
  return keys
    .reverse()
    .map((k) => `/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`)
    .join('');
}

/** An evaluation ran out of its budget. Not retryable: the same rule over the same data runs out again. */
export class EvaluationBudgetExceeded extends Error {
  override readonly name = 'EvaluationBudgetExceeded';
  readonly code = 'evaluation_budget_exceeded';
  readonly retryable = false;
  constructor(
    readonly resource: BudgetResource,
    readonly budget: EvaluationBudget,
    /** JSON pointer, in the rule, of the operator being evaluated when the budget ran out. */
    readonly at: string,
  ) {
    super(
      `the rule needs more than its evaluation budget of ${budget[resource]} ${resource} ` +
        `(stopped at ${at === '' ? 'the root' : at} of the rule)`,
    );
  }
}

/**
 * Counts what an evaluation spends, and stops it past its budget. `at` is where in the rule the
 * evaluation is (the interpreter sets it as it goes), so the error can say.
 */
export class Meter {
  operations = 0;
  items = 0;
  at: RulePlace | undefined = undefined;

  constructor(readonly budget: EvaluationBudget = currentEvaluationBudget()) {}

  /** Counts `n` operations. */
  step(n = 1): void {
    this.operations += n;
    if (this.operations > this.budget.operations) this.exceeded('operations');
  }

  /** Counts `n` allocated items. */
  allocate(n: number): void {
    this.items += n;
    if (this.items > this.budget.items) this.exceeded('items');
  }

  private exceeded(resource: BudgetResource): never {
    throw new EvaluationBudgetExceeded(resource, this.budget, pointerOf(this.at));
  }
}
