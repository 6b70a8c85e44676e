import type { PlanDiagnostic } from '@flex/contracts';
import type { EnvelopeFacts } from './envelope-facts';
import type { PlanIndex } from './plan-index';

/**
 * The array properties of the caller's schema the plan's execution nodes produce (else every
 * top-level array property): where the caller's variant count lands.
 */
export function variantArrays(index: PlanIndex, facts: EnvelopeFacts): string[] {
  const produced = new Set<string>();
  for (const node of index.plan.nodes)
    if (node.kind === 'execution') node.outputFacets.forEach((f) => produced.add(f));
  const arrays = [...facts.arrays.keys()];
  const byExecution = arrays.filter((key) => produced.has(key));
  return byExecution.length > 0 ? byExecution : arrays;
}

/**
 * How many variants the plan will produce: the branch count when the plan branches (the planner
 * reconciled the caller's number, spec 000 §5.9.5), else the caller's variant count.
 */
export function plannedVariants(
  index: PlanIndex,
  facts: EnvelopeFacts,
): { value: number; source: string } | undefined {
  const branches = index.plan.nodes.filter((n) => n.kind === 'branch');
  if (branches.length > 0) {
    const value = Math.max(branches.length, ...branches.map((n) => n.branch?.count ?? 0));
    return { value, source: `the plan's ${value} branch node(s)` };
  }
  return facts.variantCount;
}

/**
 * Caller policy against caller schema (spec 000 §5.9.5): a variant count outside the
 * `minItems`/`maxItems` of the array the execution node produces is `schema_incompatible`, hard.
 * The count is the plan's (its branches) when it has branches, so a planner can reconcile it.
 */
export function checkPolicyAgainstSchema(index: PlanIndex, facts: EnvelopeFacts): PlanDiagnostic[] {
  const count = plannedVariants(index, facts);
  if (!count) return [];
  const executor = index.plan.nodes.find((n) => n.kind === 'execution');
  const out: PlanDiagnostic[] = [];
  for (const property of variantArrays(index, facts)) {
    const { minItems, maxItems } = facts.arrays.get(property) ?? {};
    const conflict =
      maxItems !== undefined && count.value > maxItems
        ? { bound: 'maxItems', limit: maxItems, relation: 'exceeds', fix: `at most ${maxItems}`, too: 'many' }
        : minItems !== undefined && count.value < minItems
          ? {
              bound: 'minItems',
              limit: minItems,
              relation: 'is below',
              fix: `at least ${minItems}`,
              too: 'few',
            }
          : undefined;
    if (!conflict) continue;
    out.push({
      severity: 'hard',
      status: 'unsatisfied',
      cause: 'schema_incompatible',
      constraint: `variantCount ${count.value} ${conflict.relation} ${property}.${conflict.bound} ${conflict.limit}`,
      constraintId: 'policy.variantCount',
      ...(executor ? { nodeId: executor.id } : {}),
      // Toward satisfaction from the plan's side: the plan changes its count, the contract stays.
      suggestion: `The plan produces too ${conflict.too} ${property} (${count.value}, from ${count.source}): produce ${conflict.fix}, as ${property}.${conflict.bound} requires.`,
      details: {
        check: 'policy_schema',
        property,
        variantCount: count.value,
        [conflict.bound]: conflict.limit,
        source: count.source,
      },
    });
  }
  return out;
}
