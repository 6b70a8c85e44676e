import type { Decision, StateFold } from '@flex/decider';
import type { EventMetadata, EventStore, NewEvent, StoredEvent } from '@flex/event-store';
import type { Clock, IdGenerator } from './clock';
import { foldOnto, loadState, remember } from './load-state';
import type { CachedState, StreamStateCache } from './stream-state-cache';

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
 *
 * A cached state is first tried as it is, without reading the stream's tail: the append's expected
 * version proves it was the whole stream when the events committed, else the append is refused and
 * the tail is read. A decision that appends nothing, or a duplicate, proves nothing about the cache:
 * it is taken again on a state read now, as if the cache had not been tried. With a cache, the
 * process's commands on one stream run one after another (StreamStateCache.serially).
 */
export function runCommand<S, F>(options: CommandOptions<S, F>): Promise<CommandResult<S, F>> {
  const { cache } = options;
  return cache ? cache.serially(options.streamId, () => decideAndAppend(options)) : readAndDecide(options);
}

async function decideAndAppend<S, F>(options: CommandOptions<S, F>): Promise<CommandResult<S, F>> {
  const cached = options.cache?.get(options.fold, options.streamId);
  if (cached) {
    const tried = await appendOnCached(options, cached);
    if (tried) return tried;
  }
  return readAndDecide(options);
}

/** The command decided on `cached` and appended; undefined when that proved nothing (see runCommand). */
async function appendOnCached<S, F>(
  options: CommandOptions<S, F>,
  cached: CachedState<S>,
): Promise<CommandResult<S, F> | undefined> {
  let decision: Decision<F>;
  try {
    decision = options.decide(cached.state);
  } catch {
    // A decider that throws on the cached state throws again, or decides, on the state read next.
    return undefined;
  }
  if (decision.events.length === 0) return undefined;
  try {
    const appended = await append(options, cached, decision);
    return appended.duplicate ? undefined : appended;
  } catch (error) {
    if ((error as { code?: string }).code === 'WRONG_EXPECTED_VERSION') return undefined;
    throw error;
  }
}

async function readAndDecide<S, F>(options: CommandOptions<S, F>): Promise<CommandResult<S, F>> {
  const maxConflicts = options.maxConflicts ?? 25;
  const { fold, streamId, cache } = options;
  for (let attempt = 0; ; attempt++) {
    const at = await loadState(options.store, streamId, fold, cache);
    const decision = options.decide(at.state);
    if (decision.events.length === 0) return { appended: [], state: at.state, duplicate: false, decision };
    try {
      return await append(options, at, decision);
    } catch (error) {
      if ((error as { code?: string }).code !== 'WRONG_EXPECTED_VERSION' || attempt >= maxConflicts)
        throw error;
      await jitter(attempt);
    }
  }
}

/** Append what was decided on `at`, with its version as the expected one. */
async function append<S, F>(
  options: CommandOptions<S, F>,
  at: CachedState<S>,
  decision: Decision<F>,
): Promise<CommandResult<S, F>> {
  const { fold, streamId, cache } = options;
  const { version, state } = at;
  const result = await options.store.append(streamId, newEvents(options, state, decision), {
    expectedVersion: version === 0 ? 'no_stream' : version,
    idempotencyKey: options.idempotencyKey,
  });
  // A duplicate's events were stored earlier: they are in the stream's history, not after `version`.
  if (result.duplicate) return { appended: [], state, duplicate: true, decision };
  const next = remember(cache, fold, streamId, foldOnto(at, result.events, streamId, fold));
  return { appended: result.events, state: next.state, duplicate: false, decision };
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
