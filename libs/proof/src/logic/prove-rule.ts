import { validateJsonLogic } from '@flex/contracts';
import type { Finding, Verdict } from '../verdict';
import { hasValues, type Domain } from './domain';
import { AnalysisLimitError, newState, rootScope, type EvalState, type Evaluated } from './eval-state';
import { analyse, operatorOf } from './evaluate';
import { truthiness } from './truthiness';

/** The verdict on a JSONLogic constraint over every data value of a domain, and why. */
export interface RuleProof {
  readonly verdict: Verdict;
  readonly findings: Finding[];
}

export interface ProveRuleOptions {
  /** Abstract operations allowed before giving up with `unknown` (default {@link DEFAULT_RULE_BUDGET}). */
  readonly budget?: number;
  /** Items the analysis may allocate (texts joined, probe results) before giving up with `unknown`. */
  readonly itemBudget?: number;
}

export const DEFAULT_RULE_BUDGET = 20_000;

/**
 * Decides statically whether `rule` holds for every data value of `data`, as Flex's evaluator
 * (libs/logic `evaluateRule`) would run it. `proven`: the result is truthy for every value (and
 * never throws); `refuted`: it is truthy for none (it is falsy, or the evaluation throws, which
 * fails the constraint too); `unknown` otherwise, with findings naming the data pointers and
 * operators that could not be decided. Never throws.
 */
export function proveRule(rule: unknown, data: Domain, options: ProveRuleOptions = {}): RuleProof {
  const issues = validateJsonLogic(rule, '');
  if (issues.length > 0) {
    const why = (i: (typeof issues)[number]) => `not a valid JSONLogic rule at "${i.path}": ${i.message}`;
    return unknown(issues.slice(0, 5).map((i) => finding('', [i.code], why(i))));
  }
  if (!hasValues(data)) {
    return unknown([finding('', [], 'no data value satisfies the schemas, so nothing is decided')]);
  }
  const state = newState(options.budget ?? DEFAULT_RULE_BUDGET, options.itemBudget);
  let result: Evaluated;
  try {
    result = analyse(rule, rootScope(data), state);
  } catch (error) {
    const limit = error instanceof AnalysisLimitError;
    const message = limit
      ? `${error.message}: left to the runtime check`
      : `the analysis failed (${String(error)})`;
    return unknown([finding('', [limit ? error.code : 'internal'], message)]);
  }
  return verdictOf(rule, result, state);
}

function verdictOf(rule: unknown, result: Evaluated, state: EvalState): RuleProof {
  const op = operatorOf(rule) ?? '';
  const pointer = result.reads[0] ?? '';
  const t = truthiness(result.domain);
  const throws = state.throwReasons.length > 0;
  if (!t.true && (t.false || throws)) {
    const why = t.false ? 'is false' : 'throws';
    const message = `the constraint ${why} for every value the schemas admit${readsNote(result.reads)}`;
    return { verdict: 'refuted', findings: [finding(pointer, [op], message)] };
  }
  if (t.true && !t.false && !throws) return { verdict: 'proven', findings: [] };
  const findings = [...state.undecided.values()];
  for (const reason of state.throwReasons) {
    findings.push(finding(pointer, [op], `the evaluation may throw at runtime: ${reason}`));
  }
  if (findings.length === 0) {
    findings.push(finding(pointer, [op], `the constraint may be true or false${readsNote(result.reads)}`));
  }
  return unknown(findings);
}

function readsNote(reads: readonly string[]): string {
  return reads.length > 1 ? ` (reads ${reads.join(', ')})` : '';
}

function finding(pointer: string, keywords: readonly string[], message: string): Finding {
  return { pointer, keywords: keywords.filter((k) => k !== ''), message };
}

function unknown(findings: Finding[]): RuleProof {
  return { verdict: 'unknown', findings };
}
