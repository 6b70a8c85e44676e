import type { StoredEvent } from '@flex/event-store';

/**
 * One append as the record shows it: `runCommand` writes a decision's events together, with the
 * same producer, causation id, actor and ONE clock reading, at consecutive versions. Two appends
 * with the same key in the same millisecond read as one batch here; the re-decider splits such a
 * batch again where a decision ends (see `verifyReplay`).
 */
export interface Batch {
  /** The events of the append, in version order. */
  readonly events: readonly StoredEvent[];
  readonly producer: string | undefined;
  /** The event the decision reacted to; absent for a command from outside (the gateway's). */
  readonly causationId: string | undefined;
  /** The clock reading the decision was taken at. */
  readonly timestamp: string;
}

/** The batch that starts at `from` in a stream's events (version order): the longest run of one key. */
export function batchAt(events: readonly StoredEvent[], from: number): Batch {
  const first = events[from];
  let end = from + 1;
  while (end < events.length && sameAppend(first, events[end])) end++;
  return {
    events: events.slice(from, end),
    producer: first.metadata.producer,
    causationId: first.metadata.causationId,
    timestamp: first.timestamp,
  };
}

/** A stream's events cut into batches (see {@link Batch}). */
export function groupBatches(events: readonly StoredEvent[]): Batch[] {
  const batches: Batch[] = [];
  for (let i = 0; i < events.length; i += batches[batches.length - 1].events.length) {
    batches.push(batchAt(events, i));
  }
  return batches;
}

function sameAppend(a: StoredEvent, b: StoredEvent): boolean {
  return (
    a.metadata.producer === b.metadata.producer &&
    a.metadata.causationId === b.metadata.causationId &&
    a.metadata.actor === b.metadata.actor &&
    a.timestamp === b.timestamp
  );
}
