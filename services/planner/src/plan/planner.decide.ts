import type { PlannerError, PlannerOutput } from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import { isTerminal, type RunState } from '@flex/run-model';
import { isPlannerError } from './planner';
import { planHash } from './planner-input';

/** What the adapter learned for one plan request: the planner's answer, or that the replan budget is spent. */
export type PlanOutcome = { kind: 'planned'; result: PlannerOutput | PlannerError } | { kind: 'replan_limit'; replans: number; max: number };

/**
 * React to one plan request: a draft for the validator, or a failed run when the planner says the
 * goal cannot be planned or the run has used up its replans. A request that is no longer the
 * pending one decides nothing (duplicate delivery, or a later attempt already superseded it).
 */
export function decidePlan(state: RunState, requestEventId: string, outcome: PlanOutcome): DecidedEvent[] {
  if (state.status === 'none' || isTerminal(state)) return [];
  if (state.pendingPlanRequest?.eventId !== requestEventId) return [];
  if (outcome.kind === 'replan_limit') {
    return [{ type: 'run_failed', payload: { code: 'replan_limit', reason: `replan ${outcome.replans} refused: a run may replan at most ${outcome.max} time(s) (FLEX_MAX_REPLANS)` } }];
  }
  const { result } = outcome;
  if (isPlannerError(result)) {
    return [{ type: 'run_failed', payload: { code: result.code, reason: `planner: ${result.message}`.slice(0, 8_000) } }];
  }
  const fallbackError = result.metadata.plannerError as PlannerError | undefined;
  return [
    {
      type: 'plan_drafted',
      payload: {
        attempt: state.pendingPlanRequest.attempt,
        plan: result.plan,
        planHash: planHash(result.plan),
        ...(fallbackError ? { plannerError: fallbackError } : {}),
      },
    },
  ];
}
