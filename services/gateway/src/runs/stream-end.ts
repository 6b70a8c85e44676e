import { INTERNAL_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '@flex/contracts';

/**
 * When a live stream of a run stops following it (besides the client leaving). Every stream ends
 * right after the run's terminal event, and at once when the client already has it.
 * - `terminal`: only then. `GET runs/:id/events` is a watcher's stream (a dashboard, `flex events
 *   --follow`): it follows a paused run, and the events appended while it is paused, until it ends.
 * - `terminal_or_rest`: also when the run comes to rest paused (its last `run_paused` has no
 *   `run_resumed` after it and every stored event has been sent). `run.stream` and `run.resume` are
 *   a command's answer: a pause hands the run to whoever resumes it, and `run.resume` streams on.
 * - `stored`: also once every stored event has been sent (`GET runs/:id/events?follow=false`): what
 *   the run holds now, for a reader that does not want to follow it.
 */
export type StreamEnd = 'terminal' | 'terminal_or_rest' | 'stored';

/** What a stream has seen of its run so far. */
export interface StreamProgress {
  ended: boolean;
  paused: boolean;
}

export const NOTHING_SEEN: StreamProgress = { ended: false, paused: false };

/** Fold one event of the run into what the stream has seen. */
export function observe(progress: StreamProgress, type: string): StreamProgress {
  if (isTerminalType(type)) return { ended: true, paused: false };
  if (type === 'run_paused') return { ...progress, paused: true };
  if (type === 'run_resumed') return { ...progress, paused: false };
  return progress;
}

/** Whether the stream stops now; `caughtUp`: nothing stored is left to send. */
export function stops(progress: StreamProgress, end: StreamEnd, caughtUp: boolean): boolean {
  switch (end) {
    case 'terminal':
      return progress.ended;
    case 'terminal_or_rest':
      return progress.ended || (caughtUp && progress.paused);
    case 'stored':
      return progress.ended || caughtUp;
  }
}

export function isTerminalType(type: string): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** Events that stay between services: the stream reads past them without sending them. */
export function isInternalType(type: string): boolean {
  return (INTERNAL_EVENT_TYPES as readonly string[]).includes(type);
}
