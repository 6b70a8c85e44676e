import type { Decision, StateFold } from '@flex/decider';
import type { EventMetadata, EventStore, NewEvent, StoredEvent } from '@flex/event-store';
import type { Clock, IdGenerator } from './clock';
import { foldOnto, loadState, remember } from './load-state';
import type { StreamStateCache } from './stream-state-cache';

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
  /**
   * The process's stream states (the runtime's `streamStates`): only the events after the cached
   * version are read. The state handed to `decide` is then frozen: a decider must not change it.
   */
  cache?: StreamStateCache;
}

export interface CommandResult<S, F> {
  /** What this call appended (none for a duplicate). */
  appended: StoredEvent[];
  /** The stream's state after the append; for a duplicate, the state the decision was taken on. */
  state: S;
  /** The idempotency key was used before: the events stored then stand, nothing was appended. */
  duplicate: boolean;
  /** The decision taken on the state the append was checked against: its effects are the caller's to perform. */
  decision: Decision<F>;
}

/**
 * Load the stream (from the cache, reading only what it lacks), fold it, decide, append with the
 * version decided on as the expected version. A conflicting append means another instance or
 * handler moved the stream first: catch up and decide again (DESIGN §3). So every decision is taken
 * on exactly the state its append is checked against, however stale the cache. The decision comes
 * back with the result, so the adapter performs its effects after the commit.
 */
export async function runCommand<S, F>(options: CommandOptions<S, F>): Promise<CommandResult<S, F>> {
  const maxConflicts = options.maxConflicts ?? 25;
  const { fold, streamId, cache } = options;
  for (let attempt = 0; ; attempt++) {
    const { version, state } = await loadState(options.store, streamId, fold, cache);
    const decision = options.decide(state);
    if (decision.events.length === 0) return { appended: [], state, duplicate: false, decision };
    try {
      const result = await options.store.append(streamId, newEvents(options, state, decision), {
        expectedVersion: version === 0 ? 'no_stream' : version,
        idempotencyKey: options.idempotencyKey,
      });
      // A duplicate's events were stored earlier: they are in the stream's history, not after `version`.
      if (result.duplicate) return { appended: [], state, duplicate: true, decision };
      const next = remember(
        cache,
        fold,
        streamId,
        foldOnto({ version, state }, result.events, streamId, fold),
      );
      return { appended: result.events, state: next.state, duplicate: false, decision };
    } catch (error) {
      if ((error as { code?: string }).code !== 'WRONG_EXPECTED_VERSION' || attempt >= maxConflicts)
        throw error;
      await jitter(attempt);
    }
  }
}

function newEvents<S, F>(options: CommandOptions<S, F>, state: S, decision: Decision<F>): NewEvent[] {
  const metadata = options.metadata(state);
  const timestamp = options.clock.now().toISOString();
  return decision.events.map((d) => ({
    id: options.ids.uuid(),
    type: d.type,
    payload: d.payload,
    metadata,
    timestamp,
  }));
}

function jitter(attempt: number): Promise<void> {
  const ms = Math.min(5 * 2 ** Math.min(attempt, 6), 200) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}
