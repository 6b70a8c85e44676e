import type { StoredEvent } from '@flex/event-store';
import type { DecidedEvent } from './compare';

/** What a component decided on, rebuilt from the record for one recorded append. */
export interface ReplayStep {
  /** The stream before the append, in version order: what the decider folded. */
  readonly history: readonly StoredEvent[];
  /** The event the append reacted to (named by its causation id), when it is in the stream. */
  readonly trigger: StoredEvent | undefined;
  /**
   * The recorded append. Inputs from outside are read from it (an agent's answer, an operator's
   * decision, an LLM's draft): the component re-decides what it made of them.
   */
  readonly recorded: readonly StoredEvent[];
  /** The clock reading the decision was taken at: the append's timestamp. */
  readonly now: Date;
}

/** One way the component could have decided the step (`via` names the decide path, for reports). */
export interface Redecision {
  readonly via: string;
  readonly events: readonly DecidedEvent[];
  /** The events are the record's own (an outside fact, or a record too old to decide again). */
  readonly fromRecord?: boolean;
}

/**
 * How one producer's decisions are taken again: its current decide functions, fed the step.
 * `redecide` returns every decision the component can take for that kind of step (a handler may
 * decide on one event along more than one path: a first delivery and a redelivery, a reaction and a
 * timer); the record verifies when one of them produces it.
 */
export interface ReplayAdapter {
  /** `metadata.producer` of the events this adapter re-decides. */
  readonly producer: string;
  redecide(step: ReplayStep): readonly Redecision[];
  /** The component that decided an event of `type` (default: the producer). */
  component?(type: string): string;
}

/** The adapters of a replay, by producer. A producer without one is reported, never skipped. */
export type ReplayAdapters = ReadonlyMap<string, ReplayAdapter>;

/** The adapters by producer; a later adapter for the same producer replaces an earlier one. */
export function replayAdapters(...adapters: readonly ReplayAdapter[]): ReplayAdapters {
  return new Map(adapters.map((a) => [a.producer, a]));
}

/** The recorded events as they are: for an outside fact an adapter cannot decide (counted as such). */
export function takenFromRecord(events: readonly StoredEvent[]): Redecision {
  return {
    via: 'record',
    events: events.map((e) => ({ type: e.type, payload: e.payload })),
    fromRecord: true,
  };
}
