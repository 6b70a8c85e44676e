import type { PlannerError, PlannerOutput } from '@flex/contracts';
import { isPlannerError, plannerOutput, type PlannerRequest } from '../plan/planner';
import { planRuleBased } from '../plan/rule-based.planner';

/**
 * The rule-based draft that stands in for another planner's (DESIGN §5.2), marked with why in
 * `metadata.fallbackReason`. It acts on the previous diagnostics when it can; when they name
 * something only the other planner's draft had (PLANNER_UNRESOLVABLE), it drafts afresh and lets
 * the validator judge, rather than failing the run on another planner's mistakes.
 */
export function ruleBasedFallback(request: PlannerRequest, reason: string): PlannerOutput | PlannerError {
  let draft = planRuleBased(request);
  if (isPlannerError(draft) && draft.code === 'PLANNER_UNRESOLVABLE' && request.diagnostics) {
    draft = planRuleBased({ ...request, diagnostics: undefined });
  }
  if (isPlannerError(draft)) return draft;
  const metadata = { ...draft.plan.metadata, fallbackReason: reason.slice(0, 500) };
  return plannerOutput({ ...draft.plan, metadata }, draft.metadata);
}
