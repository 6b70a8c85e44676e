import type { ReadStreamOptions, StoredEvent } from '@flex/event-store';
import { sseFrame } from './event-frame';
import { isInternalType, NOTHING_SEEN, observe, stops, type StreamEnd } from './stream-end';

const PAGE = 500;

/** What the loop reads: the event store's stream reads (the gateway's EventStore). */
export interface StreamSource {
  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]>;
  /** The stream's events after `afterVersion`, `limit` at most (EventStore.readTail). */
  readTail(streamId: string, afterVersion: number, limit: number): Promise<readonly StoredEvent[]>;
  streamVersion(streamId: string): Promise<number>;
}

/** Where frames go: the SSE response (SseSink), or a spec's recorder. */
export interface FrameSink {
  readonly gone: boolean;
  readonly stalled: boolean;
  write(chunk: string): Promise<void>;
  /** From now on, log frames are dropped: the stream is about to end. */
  endLogs(): void;
  keepAlive(): void;
}

export interface PumpOptions {
  /** The client has every event up to this position (`Last-Event-ID`): they are not sent again. */
  afterPosition: number;
  end: StreamEnd;
}

/** Why a stream stopped (besides `shutdown`, `stalled`, `client_left`: see run-stream). */
export type PumpStop = 'terminal' | 'paused' | 'client_left' | 'stalled' | 'shutdown';

/**
 * What wakes the loop, and the run's events the bus handed over: the bus only carries committed
 * events (published after commit), so one that is the very next version is sent as it is, without
 * reading the store. Handed-over events may come late, twice, out of order or not at all: whatever is
 * not the next version waits, and a gap (or a quiet `recheckMs`) sends the loop to the store.
 */
export class RunFeed {
  rung = false;
  private readonly handed = new Map<number, StoredEvent>();
  private wake: (() => void) | undefined;

  constructor(
    private readonly streamId: string,
    readonly recheckMs: number,
  ) {}

  /** The response closed, or the gateway is stopping. */
  readonly ring = (): void => {
    this.rung = true;
    this.wake?.();
  };

  /** The bus's watch callback: a committed event of some stream. */
  readonly offer = (event: StoredEvent): void => {
    // Not this run's, or not a version to place (a foreign message): the store will say.
    if (event.streamId !== this.streamId || !Number.isSafeInteger(event.version)) return;
    this.handed.set(event.version, event);
    this.ring();
  };

  clear(): void {
    this.rung = false;
  }

  /** The handed-over events right after `version`, in order; forgets those at or before it. */
  take(version: number): StoredEvent[] {
    for (const held of this.handed.keys()) if (held <= version) this.handed.delete(held);
    const out: StoredEvent[] = [];
    for (let next = this.handed.get(version + 1); next; next = this.handed.get(version + 1)) {
      this.handed.delete(next.version);
      out.push(next);
      version = next.version;
    }
    return out;
  }

  /** Something later than `version + 1` was handed over: an event between is missing here. */
  gapAfter(version: number): boolean {
    for (const held of this.handed.keys()) if (held > version) return true;
    return false;
  }

  /** Until the bell rings (now, if it rang since the last clear) or `recheckMs` pass; false then. */
  wait(): Promise<boolean> {
    if (this.rung) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), this.recheckMs);
      const finish = (rang: boolean) => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve(rang);
      };
      this.wake = () => finish(true);
    });
  }
}

/**
 * Sends the run's events from after `options.afterPosition` until `options.end` says stop or the
 * client leaves. The cursor is the stream's version, so each event is sent once and in order, from
 * the feed when it holds the next version, else from the store. The store is read at the start,
 * after a gap in what the bus handed over, when a page came back full, after a quiet `recheckMs`
 * (a notification the bus lost), and when stopping depends on nothing stored being left.
 */
export async function pumpRun(
  source: StreamSource,
  streamId: string,
  options: PumpOptions,
  sink: FrameSink,
  feed: RunFeed,
  stopping: () => boolean,
): Promise<PumpStop> {
  let version = await startVersion(source, streamId, options.afterPosition);
  let progress = NOTHING_SEEN;
  let mustRead = true;
  while (!sink.gone) {
    if (stopping()) return 'shutdown';
    feed.clear();
    const read: boolean = mustRead;
    const events: readonly StoredEvent[] = read
      ? await source.readTail(streamId, version, PAGE)
      : feed.take(version);
    mustRead = read && events.length === PAGE;
    for (const event of events) {
      version = event.version;
      progress = observe(progress, event.type);
      // The terminal event is the stream's last frame: no log line after it.
      if (progress.ended) sink.endLogs();
      const sent = event.position > options.afterPosition && !isInternalType(event.type);
      if (sent) await sink.write(sseFrame(event));
      if (progress.ended || sink.gone) break;
    }
    const caughtUp = read && events.length === 0 && !feed.rung;
    if (stops(progress, options.end, caughtUp)) {
      sink.endLogs();
      return progress.ended ? 'terminal' : 'paused';
    }
    if (events.length > 0) continue;
    // Only the store can say nothing is left, or fill a gap.
    if (!read && (feed.gapAfter(version) || stops(progress, options.end, true))) {
      mustRead = true;
      continue;
    }
    mustRead = !(await feed.wait());
    sink.keepAlive();
  }
  return sink.stalled ? 'stalled' : 'client_left';
}

/**
 * The version to read after: one before the last event the client has, so the loop reads that
 * event again (without sending it) and learns whether the run had already ended there. A run's
 * terminal event is its last (TERMINAL_EVENT_TYPES), so a `Last-Event-ID` at or past it ends at
 * once, and one past everything stored still ends when the terminal event comes, wherever it lands.
 */
async function startVersion(source: StreamSource, streamId: string, afterPosition: number): Promise<number> {
  if (afterPosition <= 0) return 0;
  // Read the version first: if nothing is past afterPosition afterwards, all of it is the client's.
  const known = await source.streamVersion(streamId);
  const [next] = await source.readStream(streamId, { afterPosition, limit: 1 });
  const lastHeld = next ? next.version - 1 : known;
  return Math.max(0, lastHeld - 1);
}
