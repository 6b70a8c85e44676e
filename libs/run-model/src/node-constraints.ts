import type { ConstraintSpec, PlanNode } from '@flex/contracts';
import { constraintIdOf, evaluateRule, truthy } from '@flex/logic';
import type { OutputIssue } from './node-contract';
import { facetValuesFor } from './node-view';
import type { StartedRun } from './run.state';

/**
 * The hard constraints a node `enforces`, evaluated when it completes on the values visible to it
 * plus its output; each one that does not hold is an error at `/constraints/<id>`. A constraint
 * reading a facet the node cannot see is left to the final output's check.
 */
export function enforcedConstraintErrors(
  state: StartedRun,
  node: PlanNode,
  output: Record<string, unknown>,
): OutputIssue[] {
  const enforced = new Set(node.enforces ?? []);
  if (enforced.size === 0) return [];
  const data = { ...facetValuesFor(state, node), ...output };
  const issues: OutputIssue[] = [];
  (state.envelope.outputContract.constraints ?? []).forEach((spec, index) => {
    const id = constraintIdOf(spec, index);
    if (spec.level !== 'hard' || !enforced.has(id)) return;
    if (!constraintRoots(spec.expr).every((root) => data[root] !== undefined)) return;
    const result = evaluateRule(spec.expr, data);
    if (result.ok && truthy(result.value)) return;
    issues.push(constraintIssue(id, spec, result.ok ? undefined : result.error));
  });
  return issues;
}

/** A hard constraint that does not hold, said so that whoever retries knows which rule to satisfy. */
export function constraintIssue(id: string, spec: ConstraintSpec, evaluationError?: string): OutputIssue {
  const rule = JSON.stringify(spec.expr).slice(0, 1_000);
  const why = spec.description ?? spec.rationale;
  const failed = evaluationError ? ` (it could not be evaluated: ${evaluationError})` : '';
  return {
    path: `/constraints/${id}`,
    keyword: 'constraint',
    message: `hard constraint ${id} does not hold: ${rule}${failed}${why ? ` — ${why}` : ''}`.slice(0, 4_000),
  };
}

/** The top-level facets a JSONLogic rule reads (the first segment of every `var` path), sorted. */
export function constraintRoots(expr: unknown): string[] {
  return [
    ...new Set(
      varPaths(expr)
        .map((p) => p.split('.')[0])
        .filter((p) => p.length > 0),
    ),
  ].sort();
}

/** Operators whose later arguments read each item of the first (their `var`s are item-relative). */
const ITEM_SCOPED: Readonly<Record<string, readonly number[]>> = {
  all: [0],
  some: [0],
  none: [0],
  map: [0],
  filter: [0],
  reduce: [0, 2],
};

function varPaths(expr: unknown, depth = 0): string[] {
  if (depth > 64) return [];
  if (Array.isArray(expr)) return expr.flatMap((e) => varPaths(e, depth + 1));
  if (!expr || typeof expr !== 'object') return [];
  return Object.entries(expr).flatMap(([op, arg]) => {
    const scoped = ITEM_SCOPED[op];
    if (scoped && Array.isArray(arg)) return scoped.flatMap((i) => varPaths(arg[i], depth + 1));
    if (op !== 'var') return varPaths(arg, depth + 1);
    const path = Array.isArray(arg) ? arg[0] : arg;
    return typeof path === 'string' ? [path] : typeof path === 'number' ? [String(path)] : [];
  });
}
