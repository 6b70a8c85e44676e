import type { DecidedRunEvent } from '@flex/contracts';
import type { RunState } from '../run.state';

/** Why a cancel was refused; the API maps each to its status. */
export type CancelRefusal = { code: 'run_not_found' | 'run_already_ended'; message: string };

/** `POST runs/:id/cancel`: the event to append (none when already cancelled), or a refusal. */
export type CancelDecision =
  | { ok: true; events: DecidedRunEvent<'run_cancelled'>[]; alreadyCancelled: boolean }
  | { ok: false; refusal: CancelRefusal };

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
export function decideCancel(state: RunState, command: CancelCommand): CancelDecision {
  if (state.status === 'none') return refuse('run_not_found', `no run ${command.runId}`);
  if (state.status === 'cancelled') return { ok: true, events: [], alreadyCancelled: true };
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
  return { ok: true, events: [{ type: 'run_cancelled', payload }], alreadyCancelled: false };
}

function refuse(code: CancelRefusal['code'], message: string): CancelDecision {
  return { ok: false, refusal: { code, message } };
}
