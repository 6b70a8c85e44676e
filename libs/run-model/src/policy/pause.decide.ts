import { decision } from '@flex/decider';
import type { RunState } from '../run.state';
import { runSnapshot } from './action.decide';
import { refuse, type ControlDecision } from './control.decision';

export interface PauseCommand {
  runId: string;
  /** The operator who pauses the run. */
  by: string;
  reason?: string;
}

/**
 * An operator pauses a run (pure), without a policy: `run_paused` with the reason, the operator and
 * the snapshot a policy's pause records. Only a run going on an accepted plan (running, or waiting
 * for a human: its pending requests stay pending) can be paused; a run still planning, already
 * paused or ended is refused. Resuming is `run.resume`, as for any pause.
 */
export function decidePause(state: RunState, command: PauseCommand): ControlDecision {
  const { runId, by } = command;
  switch (state.status) {
    case 'none':
      return refuse('run_not_found', `no run ${runId}`);
    case 'planning':
      return refuse(
        'invalid_run_state',
        `run ${runId} is still planning; it can be paused once it has a plan`,
      );
    case 'paused':
      return refuse('invalid_run_state', `run ${runId} is already paused (${state.pause.reason})`);
    case 'completed':
    case 'failed':
    case 'cancelled':
      return refuse('invalid_run_state', `run ${runId} has already ended (${state.status})`);
    case 'running':
    case 'awaiting_hitl': {
      const reason = command.reason ?? 'paused by an operator';
      const payload = { reason, pausedBy: by, snapshot: runSnapshot(state) };
      return decision([{ type: 'run_paused', payload }]);
    }
  }
}
