import type { DecidedEvent } from '@flex/runtime';
import type { RunState } from '@flex/run-model';
import type { PlannerResult } from './rule-based.planner';

/**
 * React to one plan request: a draft for the validator, or a failed run when the planner says the
 * goal cannot be planned. A request that is no longer the pending one decides nothing (duplicate
 * delivery, or a later attempt already superseded it).
 */
export function decidePlan(state: RunState, requestEventId: string, result: PlannerResult): DecidedEvent[] {
  if (state.status !== 'planning' && state.status !== 'running') return [];
  if (state.pendingPlanRequest?.eventId !== requestEventId) return [];
  if (result.ok) {
    return [{ type: 'plan_drafted', payload: { attempt: state.pendingPlanRequest.attempt, plan: result.plan, planHash: result.planHash } }];
  }
  return [{ type: 'run_failed', payload: { code: result.error.code, reason: result.error.message } }];
}
