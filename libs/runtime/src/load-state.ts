import type { StateFold } from '@flex/decider';
import type { EventStore, StoredEvent } from '@flex/event-store';
import type { CachedState, StreamStateCache } from './stream-state-cache';

/**
 * The stream's state as it is now: the cached state (if any) with the events after it folded in
 * (EventStore.readTail: without a cache, the whole stream). The state comes back frozen when a
 * cache is given (it is then shared with every later caller of this process).
 */
export async function loadState<S>(
  store: EventStore,
  streamId: string,
  fold: StateFold<S>,
  cache?: StreamStateCache,
): Promise<CachedState<S>> {
  const cached = cache?.get(fold, streamId);
  const from = cached ?? { version: 0, state: fold.initialState() };
  const events = await store.readTail(streamId, from.version);
  return remember(cache, fold, streamId, foldOnto(from, events, streamId, fold));
}

/** `at` with `events` (the very next versions of the stream) folded in. */
export function foldOnto<S>(
  at: CachedState<S>,
  events: readonly StoredEvent[],
  streamId: string,
  fold: StateFold<S>,
): CachedState<S> {
  let { version, state } = at;
  for (const event of events) {
    // A hole or an overlap would make the state the fold of something the stream never was.
    if (event.version !== version + 1)
      throw new Error(`stream ${streamId}: expected version ${version + 1}, got ${event.version}`);
    state = fold.evolve(state, event);
    version = event.version;
  }
  return { version, state };
}

/** Hand `at` to the cache (which freezes it) and return it as held. */
export function remember<S>(
  cache: StreamStateCache | undefined,
  fold: StateFold<S>,
  streamId: string,
  at: CachedState<S>,
): CachedState<S> {
  if (!cache) return at;
  return { version: at.version, state: cache.set(fold, streamId, at.version, at.state) };
}
