import type { StoreLogger } from './logger';

/**
 * Removes the outbox rows of published events a beat later, together: one DELETE per beat for all
 * the appends published in it, instead of one per append, and none on an append's way back to its
 * caller. A row left a little longer changes nothing: the relay only takes rows older than its
 * `minAgeMs`, and what it publishes twice the bus dedupes by event id. `flush` (on close) removes
 * what is waiting at once; a crash before then leaves those rows to the relay, as a crash between
 * commit and publish does.
 */
export class OutboxSweep {
  readonly #remove: (positions: readonly number[]) => Promise<void>;
  readonly #beatMs: number;
  readonly #logger: StoreLogger;
  #pending: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(remove: (positions: readonly number[]) => Promise<void>, beatMs: number, logger: StoreLogger) {
    this.#remove = remove;
    this.#beatMs = beatMs;
    this.#logger = logger;
  }

  /** The rows of these positions go with the next beat's DELETE. */
  add(positions: readonly number[]): void {
    this.#pending.push(...positions);
    this.#schedule();
  }

  /** Removes every row added so far, now (after a DELETE in flight). */
  async flush(): Promise<void> {
    while (this.#running || this.#pending.length > 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      await (this.#running ?? this.#sweep());
    }
  }

  #schedule(): void {
    if (this.#timer || this.#running || this.#pending.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#sweep();
    }, this.#beatMs);
    this.#timer.unref();
  }

  #sweep(): Promise<void> {
    const positions = this.#pending;
    this.#pending = [];
    this.#running = this.#remove(positions)
      .catch((error: unknown) =>
        this.#logger.warn('could not clear published outbox rows; the relay will publish them again', {
          error,
          positions,
        }),
      )
      .finally(() => {
        this.#running = undefined;
        this.#schedule();
      });
    return this.#running;
  }
}
