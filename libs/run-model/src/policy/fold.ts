import type { DecidedFlexEvent } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { evolveRun } from '../run.evolve';
import type { RunState } from '../run.state';

/** A decided event: its type and typed payload (the adapter adds ids, time and metadata). */
export type Decided = DecidedFlexEvent;

/**
 * Fold events a decider has just decided into the state, so a decider can chain steps (policy
 * actions, then advancing) on what the stream will look like once they are appended.
 */
export function foldDecided(state: RunState, decided: readonly Decided[], now: Date): RunState {
  let next = state;
  for (const [i, d] of decided.entries()) {
    const version = (next.status === 'none' ? 0 : next.version) + 1;
    const event: StoredEvent = {
      position: 0,
      id: decidedEventId(version, i),
      streamId: '',
      version,
      type: d.type,
      payload: d.payload,
      metadata: { correlationId: '' },
      timestamp: now.toISOString(),
    };
    next = evolveRun(next, event);
  }
  return next;
}

/** The id {@link foldDecided} gives the `index`-th decided event, folded as stream version `version`. */
export function decidedEventId(version: number, index: number): string {
  return `decided-${version}-${index}`;
}
