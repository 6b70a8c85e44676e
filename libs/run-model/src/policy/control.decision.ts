import type { DecidedFlexEvent } from '@flex/contracts';
import { decision, type Decision } from '@flex/decider';

/** Why an operator's command on a run was refused. The API maps each code to its status. */
export type RefusalCode =
  | 'run_not_found'
  | 'run_already_ended'
  | 'invalid_run_state'
  | 'stale_plan_version'
  | 'hitl_request_not_found'
  | 'hitl_already_resolved'
  | 'invalid_hitl_payload'
  | 'policy_not_found'
  | 'policy_not_manual';

/** A refusal is the decision's effect: what it records is appended, then the caller is told why. */
export interface Refusal {
  type: 'refuse';
  code: RefusalCode;
  message: string;
}

/** An operator command's decision: events to append, and at most one refusal. */
export type ControlDecision = Decision<Refusal>;

/** Refuse the command, appending what the refusal records (`events`, usually none). */
export function refuse(
  code: RefusalCode,
  message: string,
  events: readonly DecidedFlexEvent[] = [],
): ControlDecision {
  return decision(events, [{ type: 'refuse', code, message }]);
}

/** The refusal a decision carries, if it was refused. */
export function refusalOf(d: ControlDecision): Refusal | undefined {
  return d.effects.find((e) => e.type === 'refuse');
}
