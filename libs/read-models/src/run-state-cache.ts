import type { StartedRun } from '@flex/run-model';

/**
 * The latest folded state of recently projected runs, by run id, least recently used evicted first.
 * A state is a pure function of its stream up to `state.version`, and events never change, so a hit
 * at the version asked for is exactly what a fold from scratch would give; anything else is a miss.
 * One cache per projection instance: a run id names a stream only within one database.
 */
export class RunStateCache {
  readonly #states = new Map<string, StartedRun>();

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 0)
      throw new RangeError(`run state cache capacity must be a whole number >= 0, got ${capacity}`);
  }

  /** The run's state as of stream version `version`, when that is the one held. */
  at(runId: string, version: number): StartedRun | undefined {
    const state = this.#states.get(runId);
    if (state?.version !== version) return undefined;
    this.#touch(runId, state);
    return state;
  }

  set(runId: string, state: StartedRun): void {
    this.#touch(runId, state);
    if (this.#states.size <= this.capacity) return;
    const oldest = this.#states.keys().next();
    if (!oldest.done) this.#states.delete(oldest.value);
  }

  clear(): void {
    this.#states.clear();
  }

  get size(): number {
    return this.#states.size;
  }

  /** A Map iterates in insertion order: re-inserting makes the entry the most recently used. */
  #touch(runId: string, state: StartedRun): void {
    this.#states.delete(runId);
    this.#states.set(runId, state);
  }
}
