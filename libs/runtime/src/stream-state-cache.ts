import type { StateFold } from '@flex/decider';

/** A stream's state as the fold of exactly its first `version` events: behind the stream maybe, never wrong. */
export interface CachedState<S> {
  readonly version: number;
  readonly state: S;
}

export interface StreamStateCacheOptions {
  /** Streams (per fold) kept; the least recently used go first. 0 keeps none. */
  maxEntries: number;
}

/**
 * The states of recently used streams, per fold, for one process and one event store. An entry only
 * saves reading and folding the events it covers: a command still reads the events after it, and
 * appends with the version it decided on, so a stale entry costs a conflict, never a wrong decision.
 * States are deep-frozen: a caller that changed one would change every later decision on it.
 */
export class StreamStateCache {
  readonly #maxEntries: number;
  readonly #entries = new Map<string, CachedState<unknown>>();
  readonly #foldIds = new WeakMap<StateFold<unknown>['evolve'], number>();
  #nextFoldId = 0;
  /** Per stream, the end of the queue of commands on it: its last command's promise. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(options: StreamStateCacheOptions) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 0)
      throw new RangeError(`maxEntries must be an integer >= 0, got ${options.maxEntries}`);
    this.#maxEntries = options.maxEntries;
  }

  /** Entries held now. */
  get size(): number {
    return this.#entries.size;
  }

  get<S>(fold: StateFold<S>, streamId: string): CachedState<S> | undefined {
    const key = this.#key(fold, streamId);
    const entry = this.#entries.get(key) as CachedState<S> | undefined;
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry;
  }

  /**
   * Keep `state` (the fold of the stream's first `version` events) unless a later version is held:
   * of two commands racing on one stream, the one that read less must not move the entry back.
   * Returns the state frozen.
   */
  set<S>(fold: StateFold<S>, streamId: string, version: number, state: S): S {
    const frozen = deepFreeze(state);
    if (this.#maxEntries === 0) return frozen;
    const key = this.#key(fold, streamId);
    const held = this.#entries.get(key);
    if (held && held.version >= version) return frozen;
    this.#entries.delete(key);
    this.#entries.set(key, { version, state: frozen });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
    return frozen;
  }

  /**
   * Run `work` once every earlier work on `streamId` given here has settled. Two commands of this
   * process on one stream would otherwise decide on the same state and one would lose the append
   * (a conflict, a read and a decision again); in turn, the second decides on what the first left.
   */
  serially<T>(streamId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#queues.get(streamId);
    const mine = before ? before.then(work, work) : work();
    const end = mine.catch(() => undefined);
    this.#queues.set(streamId, end);
    void end.then(() => {
      if (this.#queues.get(streamId) === end) this.#queues.delete(streamId);
    });
    return mine;
  }

  // A fold is known by its evolve function: callers build the fold object anew on every call.
  #key(fold: StateFold<unknown>, streamId: string): string {
    let id = this.#foldIds.get(fold.evolve);
    if (id === undefined) {
      id = this.#nextFoldId++;
      this.#foldIds.set(fold.evolve, id);
    }
    return `${id}:${streamId}`;
  }
}

// Objects known to be frozen all the way down: folds share most of a state between versions, so
// freezing the next version only walks what evolve made new.
const deeplyFrozen = new WeakSet<object>();

/** Freeze `value` and everything it reaches (own enumerable properties), then return it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || deeplyFrozen.has(value)) return value;
  deeplyFrozen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
