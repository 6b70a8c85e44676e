import type { DecidedFlexEvent } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';

/**
 * What a pure `decide` returns (DESIGN §8): the events to append and the effects the adapter
 * performs once they are committed (invoke an agent, hold a delivery until a timer is due, refuse
 * a request…). Effects are data: the adapter performs them and decides nothing.
 */
export interface Decision<Effect = never> {
  readonly events: readonly DecidedFlexEvent[];
  readonly effects: readonly Effect[];
}

/**
 * A domain's logic as three pure functions (Emmett's decider): `decide(command, state)`,
 * `evolve(state, event)` and `initialState()`. Time and ids enter through the command.
 */
export interface Decider<Command, State, Effect = never> {
  decide(command: Command, state: State): Decision<Effect>;
  evolve(state: State, event: StoredEvent): State;
  initialState(): State;
}

/** How a stream's state is rebuilt: the half of a {@link Decider} an adapter needs to load a stream. */
export type StateFold<State> = Pick<Decider<unknown, State>, 'evolve' | 'initialState'>;

/** A decision of `events` and `effects` (both optional). */
export function decision<Effect = never>(
  events: readonly DecidedFlexEvent[] = [],
  effects: readonly Effect[] = [],
): Decision<Effect> {
  return { events, effects };
}

/** Nothing to append, nothing to do. */
export const NO_DECISION: Decision<never> = Object.freeze({ events: [], effects: [] });

/** One decision after another: the events of both in order, and the effects of both. */
export function andThen<A, B>(first: Decision<A>, second: Decision<B>): Decision<A | B> {
  return { events: [...first.events, ...second.events], effects: [...first.effects, ...second.effects] };
}

/** The effects of `d` of one `type`, narrowed. */
export function effectsOf<Effect extends { type: string }, T extends Effect['type']>(
  d: Decision<Effect>,
  type: T,
): Extract<Effect, { type: T }>[] {
  return d.effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type);
}
