import type { StoredEvent } from '@flex/event-store';
import { CheckpointBeat } from './checkpoint-beat';
import { parseConsumeOptions } from './consume-options';
import { DurableTail, type TailSettings } from './durable-tail';
import { BusClosedError, describe, InvalidBusOptionsError } from './errors';
import { LogWindow } from './log-window';
import { busFallbackLogger, type BusLogger } from './logger';
import type { ConsumeOptions, Consumer, DeliveryHandler, EventBus, EventLog, LogFollower } from './types';

export interface StoreBackedEventBusOptions {
  /** Safety-net re-read of the log besides publish() wake-ups. Default 1000ms. */
  pollIntervalMs?: number;
  /** Events per read. Default 100. */
  batchSize?: number;
  /** Read-but-unacked events held per durable before reading pauses. Default 1000. */
  maxPending?: number;
  /** Acks gathered into one checkpoint write per durable, for this long. Default 50ms. */
  checkpointDelayMs?: number;
  /** Most recent events of the log kept in memory for every durable to read from. Default 1000. */
  windowSize?: number;
  logger?: BusLogger;
}

/** Consumer checkpoints live beside projection checkpoints: keep the names apart. */
export const CHECKPOINT_PREFIX = 'bus:';

/**
 * The embedded-mode bus (one process, no NATS), with JetStream's semantics over the event store:
 * events are already in the store when published, so publish() only wakes the consumers and
 * tells the watchers. Each durable tails the log from its persisted checkpoint (see DurableTail),
 * reading through one LogWindow shared by all: each event is read from the store once. When the store
 * is its database's sole writer (EventLog.follow), what it commits is fed to the window as it commits,
 * and the log is read only where that cannot be shown to be all of it (see LogWindow.feed).
 */
export class StoreBackedEventBus implements EventBus {
  private readonly tails = new Map<string, DurableTail>();
  private readonly watchers = new Map<string, Set<(event: StoredEvent) => void>>();
  private readonly settings: TailSettings;
  private readonly window: LogWindow;
  private readonly poll: NodeJS.Timeout;
  private readonly unfollow: (() => void) | undefined;
  /** The highest position the store told of; -1 when it tells nothing (not a sole writer). */
  private told = -1;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    options: StoreBackedEventBusOptions = {},
  ) {
    const pollIntervalMs = options.pollIntervalMs ?? 1000;
    const windowSize = options.windowSize ?? 1000;
    const numbers = {
      pollIntervalMs,
      windowSize,
      batchSize: options.batchSize ?? 100,
      maxPending: options.maxPending ?? 1000,
      checkpointDelayMs: options.checkpointDelayMs ?? 50,
    };
    for (const [key, value] of Object.entries(numbers)) {
      if (!(Number.isInteger(value) && value > 0))
        throw new InvalidBusOptionsError(`${key} must be a positive integer`);
    }
    this.settings = {
      batchSize: numbers.batchSize,
      maxPending: numbers.maxPending,
      rememberAcked: 10_000,
      beat: new CheckpointBeat(log, numbers.checkpointDelayMs),
      logger: options.logger ?? busFallbackLogger,
    };
    this.window = new LogWindow(log, windowSize);
    this.poll = setInterval(() => this.wakeAll(), pollIntervalMs);
    this.poll.unref();
    this.unfollow = log.follow?.(this.follower());
  }

  async publish(events: readonly StoredEvent[]): Promise<void> {
    this.assertOpen();
    // What the store told of is in the window already, or was left to a read then.
    if (this.unfollow === undefined || events.some((event) => event.position > this.told)) this.wakeAll();
    for (const event of events) {
      for (const onEvent of this.watchers.get(event.streamId) ?? []) {
        try {
          onEvent(event);
        } catch (error) {
          this.settings.logger.warn('watch callback failed', {
            streamId: event.streamId,
            error: describe(error),
          });
        }
      }
    }
  }

  async consume(options: ConsumeOptions, handler: DeliveryHandler): Promise<Consumer> {
    this.assertOpen();
    const parsed = parseConsumeOptions(options);
    let tail = this.tails.get(parsed.durable);
    if (!tail) {
      const checkpointName = CHECKPOINT_PREFIX + parsed.durable;
      tail = new DurableTail(this.log, this.window, parsed.durable, checkpointName, this.settings);
      this.tails.set(parsed.durable, tail);
    }
    const owner = tail;
    const worker = owner.addWorker(parsed, handler);
    return { stop: () => owner.removeWorker(worker) };
  }

  async watch(streamId: string, onEvent: (event: StoredEvent) => void): Promise<() => void> {
    this.assertOpen();
    const set = this.watchers.get(streamId) ?? new Set();
    this.watchers.set(streamId, set);
    set.add(onEvent);
    return () => {
      set.delete(onEvent);
      if (set.size === 0 && this.watchers.get(streamId) === set) this.watchers.delete(streamId);
    };
  }

  /** Stops reading, waits for deliveries in hand, and saves the last checkpoints. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.poll);
    this.unfollow?.();
    this.watchers.clear();
    await Promise.all([...this.tails.values()].map((tail) => tail.close()));
    this.tails.clear();
  }

  private follower(): LogFollower {
    return {
      committed: (page) => {
        this.told = Math.max(this.told, page.checkpoint.position);
        if (!this.window.feed(page)) this.window.invalidate();
        for (const tail of this.tails.values()) tail.wake();
      },
      unsure: () => this.wakeAll(),
    };
  }

  /** A publish, or the safety-net poll: what the window holds past its end must be read again. */
  private wakeAll(): void {
    this.window.invalidate();
    for (const tail of this.tails.values()) tail.wake();
  }

  private assertOpen(): void {
    if (this.closed) throw new BusClosedError('StoreBackedEventBus');
  }
}
