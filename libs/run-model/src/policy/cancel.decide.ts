import { decision, NO_DECISION } from '@flex/decider';
import type { RunState } from '../run.state';
import { refuse, type ControlDecision } from './control.decision';

export interface CancelCommand {
  runId: string;
  by: string;
  reason?: string;
}

/**
 * Cancel a run (pure). Any run not yet ended can be cancelled, whatever it waits for; its pending
 * HITL requests are closed with it. Cancelling a cancelled run again is idempotent (nothing
 * appended); a run that completed or failed is refused.
 */
export function decideCancel(state: RunState, command: CancelCommand): ControlDecision {
  if (state.status === 'none') return refuse('run_not_found', `no run ${command.runId}`);
  if (state.status === 'cancelled') return NO_DECISION;
  if (state.status === 'completed' || state.status === 'failed') {
    return refuse(
      'run_already_ended',
      `run ${command.runId} has already ended (${state.status}); only a run still going can be cancelled`,
    );
  }
  const closedHitlRequests = Object.values(state.hitl)
    .filter((request) => request.status === 'pending')
    .map((request) => request.requestId);
  const payload = {
    cancelledBy: command.by,
    from: state.status,
    closedHitlRequests,
    ...(command.reason ? { reason: command.reason } : {}),
  };
  return decision([{ type: 'run_cancelled', payload }]);
}
