import { LIMITS } from '@flex/contracts';
import { evaluateRule, Meter } from '@flex/logic';
import type { Domain } from './domain';
import { fromValues } from './domain-values';
import { AnalysisLimitError, allocate, charge, noteRisk, type EvalState } from './eval-state';
import { isPrimitive } from './value-key';

// When every operand of an operator has a short list of possible values, the operator's exact
// result set is the concrete evaluator run on each combination: no transfer function to get wrong.

/** At most this many operand combinations are run concretely. */
const COMBINATION_LIMIT = 256;
// Small enough that a rule of the operator with these literal operands passes the validator's
// size and depth caps (so a failure can only be a runtime error).
const LITERAL_NODES = 200;
const LITERAL_DEPTH = 12;

// These compare objects and arrays by reference: copies of a value are not the value.
const BY_REFERENCE = new Set(['==', '===', '!=', '!==', 'in']);

/** Counts nodes of a value usable as a literal operand; -1 when it is not (an object, too big). */
function literalSize(value: unknown, depth: number): number {
  if (isPrimitive(value)) return 1;
  if (!Array.isArray(value) || depth > LITERAL_DEPTH) return -1;
  let total = 1;
  for (const item of value) {
    const n = literalSize(item, depth + 1);
    if (n < 0) return -1;
    total += n;
    if (total > LITERAL_NODES) return -1;
  }
  return total;
}

/** Every possible value of the operand (-0 wherever 0 is: JSON data can hold either). */
function choices(d: Domain): unknown[] | undefined {
  if (d.finite === undefined) return undefined;
  if (d.finite.some((v) => literalSize(v, 0) < 0)) return undefined;
  const values = d.finite.flatMap((v) => (v === 0 ? [0, -0] : [v]));
  return d.absent ? [...values, undefined] : values;
}

/**
 * Runs the operator on one combination under what is left of the analysis's item budget, and
 * counts what it allocated. A probe over the evaluation budget leaves the rule undecided: it is
 * not a value the runtime computes, and not a throw of the operator either.
 */
function probe(op: string, combination: unknown[], state: EvalState) {
  const items = Math.max(0, state.itemBudget - state.items);
  const meter = new Meter({ operations: LIMITS.jsonLogicMaxOperations, items });
  const outcome = evaluateRule({ [op]: combination }, null, meter);
  allocate(state, meter.items);
  if (!outcome.ok && outcome.code === 'evaluation_budget_exceeded') {
    throw new AnalysisLimitError('budget', `probing \`${op}\` ${outcome.error}`);
  }
  return outcome;
}

/** Every way to pick one value from each list, in order. */
export function combinations(lists: readonly (readonly unknown[])[]): unknown[][] {
  let all: unknown[][] = [[]];
  for (const list of lists) all = all.flatMap((prefix) => list.map((v) => [...prefix, v]));
  return all;
}

/**
 * The exact result set of `op` over operands with listed values, or undefined when some operand
 * is not listed or there are too many combinations. A combination that throws notes a risk.
 */
export function enumerateOperator(op: string, operands: readonly Domain[], state: EvalState) {
  const lists = operands.map(choices);
  if (lists.some((l) => l === undefined)) return undefined;
  const defined = lists.filter((l): l is unknown[] => l !== undefined);
  const count = defined.reduce((n, l) => n * l.length, 1);
  // Past half the budget, the interval reasoning (cheaper, coarser) takes over.
  if (count > COMBINATION_LIMIT || state.cost + count > state.budget / 2) return undefined;
  charge(state, count);
  const results: unknown[] = [];
  for (const combination of combinations(defined)) {
    if (BY_REFERENCE.has(op) && combination.filter((v) => !isPrimitive(v)).length >= 2) {
      results.push(true, false);
      continue;
    }
    const outcome = probe(op, combination, state);
    if (outcome.ok) results.push(outcome.value);
    else noteRisk(state, `\`${op}\` may throw: ${outcome.error}`);
  }
  return fromValues(results);
}
