import type { Kysely } from 'kysely';
import { InvalidArgumentError } from './errors';
import type { EventStore } from './event-store';
import type { EventStoreDatabase } from './event-store.table';
import type { StoreLogger } from './logger';
import { claimOutbox, releaseOutbox } from './outbox';
import { Poller } from './poller';
import { readEventsAt } from './read';
import type { StoredEvent } from './types';

export interface OutboxRelayOptions {
  /** Poll interval. Default 1000. */
  intervalMs?: number;
  /** Leave rows younger than this to their appender's afterCommit. Default 5000. */
  minAgeMs?: number;
  /** Rows per publish. Default 100. */
  batchSize?: number;
  /** How long a claimed batch stays with this instance before another may take it. Default 30000. */
  leaseMs?: number;
  /**
   * Relay only events of these types: each service's NATS identity may publish only the events it
   * appends, so its relay leaves the others to their own services' relays. Default: every type.
   */
  types?: readonly string[];
  logger?: StoreLogger;
}

/**
 * Publishes events that committed but were never published (the appender crashed, or its
 * afterCommit failed), in position order, then deletes their outbox rows. Instances cooperate:
 * each claims a disjoint batch. A publish that fails leaves the batch for the next run; one that
 * succeeds twice is harmless, since the bus dedupes by event id.
 */
export class OutboxRelay {
  readonly #db: Kysely<EventStoreDatabase>;
  readonly #store: EventStore;
  readonly #publish: (events: StoredEvent[]) => Promise<void>;
  readonly #options: Required<Omit<OutboxRelayOptions, 'logger' | 'types'>> & { types?: readonly string[] };
  readonly #poller: Poller;

  constructor(
    db: Kysely<EventStoreDatabase>,
    store: EventStore,
    publish: (events: StoredEvent[]) => Promise<void>,
    options: OutboxRelayOptions = {},
  ) {
    this.#db = db;
    this.#store = store;
    this.#publish = publish;
    this.#options = parseOptions(options);
    const logger = options.logger ?? store.logger;
    this.#poller = new Poller(
      async () => (await this.runOnce()) === this.#options.batchSize,
      this.#options.intervalMs,
      (error) => logger.warn('outbox relay run failed; retrying at the next interval', { error }),
    );
  }

  start(): void {
    this.#poller.start();
  }

  /** Stops polling and waits for a run in flight. */
  stop(): Promise<void> {
    return this.#poller.stop();
  }

  /** Claims one batch, publishes it, deletes its rows. Returns how many events were published. */
  async runOnce(): Promise<number> {
    const positions = await claimOutbox(this.#db, this.#options);
    if (positions.length === 0) return 0;
    try {
      const events = await readEventsAt(this.#db, positions);
      await this.#publish(events);
    } catch (error) {
      await releaseOutbox(this.#db, positions).catch(() => undefined);
      throw error;
    }
    await this.#store.markPublished(positions);
    return positions.length;
  }
}

function parseOptions(
  options: OutboxRelayOptions,
): Required<Omit<OutboxRelayOptions, 'logger' | 'types'>> & { types?: readonly string[] } {
  const parsed = {
    intervalMs: options.intervalMs ?? 1000,
    minAgeMs: options.minAgeMs ?? 5000,
    batchSize: options.batchSize ?? 100,
    leaseMs: options.leaseMs ?? 30_000,
  };
  for (const [name, value] of Object.entries(parsed)) {
    const min = name === 'minAgeMs' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min)
      throw new InvalidArgumentError(`OutboxRelay ${name} must be an integer >= ${min}, got ${value}`);
  }
  if (options.types !== undefined && options.types.length === 0)
    throw new InvalidArgumentError('OutboxRelay types, when given, must name at least one type');
  return Object.freeze({ ...parsed, types: options.types === undefined ? undefined : [...options.types] });
}
