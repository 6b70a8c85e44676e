import type { StoredEvent } from './types';

/**
 * The last few committed events of recently appended streams, as this store appended them. Only
 * meaningful when the store is its database's sole writer (PGlite, which one process opens): then
 * the last version appended here is the stream's version, and the events after a state's version
 * can be taken from here instead of read back. A stream is known from the first append seen for it;
 * anything unexpected (a version out of sequence, an append that failed after it may have
 * committed) forgets it, and readers go to the store.
 */
export class RecentStreams {
  readonly #streams = new Map<string, StoredEvent[]>();
  /** Events held, over all streams. */
  #held = 0;

  /**
   * At most `maxEvents` events in all (the streams appended to least lately are forgotten first), and
   * the last `perStream` of each stream: a bound on memory that holds whole runs while there are few
   * enough of them at once, so a process that meets a run late still folds it from here.
   */
  constructor(
    private readonly maxEvents: number,
    private readonly perStream: number,
  ) {}

  /** Committed events, in commit order. */
  record(events: readonly StoredEvent[]): void {
    for (const event of events) {
      const held = this.#streams.get(event.streamId) ?? [];
      const head = held.at(-1)?.version;
      const kept = head !== undefined && event.version === head + 1 ? held : [];
      this.#held += kept.length - held.length + 1;
      kept.push(event);
      if (kept.length > this.perStream) {
        kept.shift();
        this.#held -= 1;
      }
      this.#streams.delete(event.streamId);
      this.#streams.set(event.streamId, kept);
    }
    for (const [oldest, held] of this.#streams) {
      if (this.#held <= this.maxEvents) break;
      this.#streams.delete(oldest);
      this.#held -= held.length;
    }
  }

  forget(streamId: string): void {
    this.#held -= this.#streams.get(streamId)?.length ?? 0;
    this.#streams.delete(streamId);
  }

  /**
   * The stream's events after `version`, up to its version now; undefined when that is not known
   * here (the stream was not appended here lately, or the events reach back further than kept).
   */
  after(streamId: string, version: number): StoredEvent[] | undefined {
    const held = this.#streams.get(streamId);
    if (!held || held.length === 0) return undefined;
    const first = held[0].version;
    const head = held[held.length - 1].version;
    if (version > head || version < first - 1) return undefined;
    return held.slice(version - first + 1);
  }
}
