import type { Decision, StateFold } from '@flex/decider';
import type { EventMetadata, EventStore, NewEvent, StoredEvent } from '@flex/event-store';
import type { Clock, IdGenerator } from './clock';

export interface CommandOptions<S, F> {
  store: EventStore;
  streamId: string;
  /** How the stream's state is rebuilt (the decider's `initialState` and `evolve`). */
  fold: StateFold<S>;
  decide: (state: S) => Decision<F>;
  metadata: (state: S) => EventMetadata;
  /** Same key twice appends nothing the second time (effectively once per input event). */
  idempotencyKey?: string;
  clock: Clock;
  ids: IdGenerator;
  maxConflicts?: number;
}

export interface CommandResult<S, F> {
  /** What this call appended (none for a duplicate). */
  appended: StoredEvent[];
  /** The stream's state after the append. */
  state: S;
  /** The idempotency key was used before: the events stored then stand, nothing was appended. */
  duplicate: boolean;
  /** The decision taken on the state the append was checked against: its effects are the caller's to perform. */
  decision: Decision<F>;
}

/**
 * Load the stream, fold it, decide, append with the expected version. A conflicting append means
 * another instance moved the stream first: reload and decide again (DESIGN §3). The decision comes
 * back with the result, so the adapter performs its effects after the commit.
 */
export async function runCommand<S, F>(options: CommandOptions<S, F>): Promise<CommandResult<S, F>> {
  const maxConflicts = options.maxConflicts ?? 25;
  const { fold } = options;
  for (let attempt = 0; ; attempt++) {
    const history = await options.store.readStream(options.streamId);
    const state = history.reduce(fold.evolve, fold.initialState());
    const decision = options.decide(state);
    if (decision.events.length === 0) return { appended: [], state, duplicate: false, decision };
    const version = history.length ? history[history.length - 1].version : 0;
    const meta = options.metadata(state);
    const timestamp = options.clock.now().toISOString();
    const events: NewEvent[] = decision.events.map((d) => ({
      id: options.ids.uuid(),
      type: d.type,
      payload: d.payload,
      metadata: meta,
      timestamp,
    }));
    try {
      const result = await options.store.append(options.streamId, events, {
        expectedVersion: version === 0 ? 'no_stream' : version,
        idempotencyKey: options.idempotencyKey,
      });
      const next = result.events.reduce(fold.evolve, state);
      const appended = result.duplicate ? [] : result.events;
      return { appended, state: next, duplicate: result.duplicate, decision };
    } catch (error) {
      if ((error as { code?: string }).code !== 'WRONG_EXPECTED_VERSION' || attempt >= maxConflicts)
        throw error;
      await jitter(attempt);
    }
  }
}

function jitter(attempt: number): Promise<void> {
  const ms = Math.min(5 * 2 ** Math.min(attempt, 6), 200) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
