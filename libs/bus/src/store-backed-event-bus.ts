import type { StoredEvent } from '@flex/event-store';
import { parseConsumeOptions } from './consume-options';
import { DurableTail, type TailSettings } from './durable-tail';
import { BusClosedError, describe, InvalidBusOptionsError } from './errors';
import { LogWindow } from './log-window';
import { busFallbackLogger, type BusLogger } from './logger';
import type { ConsumeOptions, Consumer, DeliveryHandler, EventBus, EventLog } from './types';

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
 * reading through one LogWindow shared by all: each event is read from the store once.
 */
export class StoreBackedEventBus implements EventBus {
  private readonly tails = new Map<string, DurableTail>();
  private readonly watchers = new Map<string, Set<(event: StoredEvent) => void>>();
  private readonly settings: TailSettings;
  private readonly window: LogWindow;
  private readonly poll: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    options: StoreBackedEventBusOptions = {},
  ) {
    const pollIntervalMs = options.pollIntervalMs ?? 1000;
    const windowSize = options.windowSize ?? 1000;
    this.settings = {
      batchSize: options.batchSize ?? 100,
      maxPending: options.maxPending ?? 1000,
      rememberAcked: 10_000,
      checkpointDelayMs: options.checkpointDelayMs ?? 50,
      logger: options.logger ?? busFallbackLogger,
    };
    for (const [key, value] of Object.entries({ pollIntervalMs, windowSize, ...this.settings })) {
      if (typeof value === 'number' && !(Number.isInteger(value) && value > 0))
        throw new InvalidBusOptionsError(`${key} must be a positive integer`);
    }
    this.window = new LogWindow(log, windowSize);
    this.poll = setInterval(() => this.wakeAll(), pollIntervalMs);
    this.poll.unref();
  }

  async publish(events: readonly StoredEvent[]): Promise<void> {
    this.assertOpen();
    this.wakeAll();
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
    this.watchers.clear();
    await Promise.all([...this.tails.values()].map((tail) => tail.close()));
    this.tails.clear();
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
