import type { EventMetadata, EventStore, NewEvent, StoredEvent } from '@flex/event-store';
import type { Clock, IdGenerator } from './clock';

/** What a pure decider returns: the type and payload; the adapter adds ids, time and metadata. */
export interface DecidedEvent {
  type: string;
  payload: unknown;
}

export interface CommandOptions<S> {
  store: EventStore;
  streamId: string;
  initial: () => S;
  evolve: (state: S, event: StoredEvent) => S;
  decide: (state: S) => readonly DecidedEvent[];
  metadata: (state: S) => EventMetadata;
  /** Same key twice appends nothing the second time (effectively once per input event). */
  idempotencyKey?: string;
  clock: Clock;
  ids: IdGenerator;
  maxConflicts?: number;
}

export interface CommandResult<S> {
  appended: StoredEvent[];
  state: S;
  duplicate: boolean;
}

/**
 * Load the stream, fold it, decide, append with the expected version. A conflicting append means
 * another instance moved the stream first: reload and decide again (DESIGN §3).
 */
export async function runCommand<S>(options: CommandOptions<S>): Promise<CommandResult<S>> {
  const maxConflicts = options.maxConflicts ?? 25;
  for (let attempt = 0; ; attempt++) {
    const history = await options.store.readStream(options.streamId);
    const state = history.reduce(options.evolve, options.initial());
    const decided = options.decide(state);
    if (decided.length === 0) return { appended: [], state, duplicate: false };
    const version = history.length ? history[history.length - 1].version : 0;
    const meta = options.metadata(state);
    const timestamp = options.clock.now().toISOString();
    const events: NewEvent[] = decided.map((d) => ({
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
      const next = result.events.reduce(options.evolve, state);
      return { appended: result.duplicate ? [] : result.events, state: next, duplicate: result.duplicate };
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
