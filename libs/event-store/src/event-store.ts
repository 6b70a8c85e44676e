import type { Kysely } from 'kysely';
import { ATTR, inChildSpan } from '@flex/tracing';
import { AppendItem, validateAppend } from './append';
import type { ChainedEvent } from './chain';
import { readChain } from './chain-read';
import { InvalidArgumentError } from './errors';
import { assertCheckpoint } from './checkpoints';
import type { EventStoreDatabase } from './event-store.table';
import { GroupCommitter } from './group-commit';
import { storeFallbackLogger, type StoreLogger } from './logger';
import { deleteOutbox } from './outbox';
import {
  currentStreamVersion,
  maxPosition,
  ReadAllPage,
  readAllEvents,
  ReadStreamOptions,
  readStreamEvents,
} from './read';
import type { AppendOptions, AppendResult, Checkpoint, NewEvent, StoredEvent } from './types';

export interface EventStoreOptions {
  /** Write an outbox row per event in the append's transaction, for the OutboxRelay to publish. */
  outbox?: boolean;
  /**
   * Called once the append has committed, with the new events (duplicates excluded): publish them
   * here. When it resolves, their outbox rows are removed; when it throws, the error is logged and
   * the relay publishes them later. It never fails the append.
   */
  afterCommit?: (events: StoredEvent[]) => Promise<void> | void;
  logger?: StoreLogger;
  /** Attempts for an append that lost a race it can retry (an `any` append, a deadlock). Default 5. */
  maxAttempts?: number;
  /** Appends committed in one transaction at most (group commit). Default 100. */
  maxGroup?: number;
  /** Group transactions in flight at once at most. Default 4. */
  maxInFlight?: number;
}

const APPEND_ATTRIBUTES = { [ATTR.dbSystem]: 'postgresql', [ATTR.dbOperation]: 'append' };

/** The append-only event log: optimistic concurrency, idempotent appends, gap-safe global reads. */
export class EventStore {
  readonly #db: Kysely<EventStoreDatabase>;
  readonly #outbox: boolean;
  readonly #afterCommit?: (events: StoredEvent[]) => Promise<void> | void;
  readonly #logger: StoreLogger;
  readonly #groups: GroupCommitter;

  /** Where the store, and the runners reading it (projections, outbox relay), report what they handle. */
  get logger(): StoreLogger {
    return this.#logger;
  }

  constructor(db: Kysely<EventStoreDatabase>, options: EventStoreOptions = {}) {
    this.#db = db;
    this.#outbox = options.outbox ?? false;
    this.#afterCommit = options.afterCommit;
    this.#logger = options.logger ?? storeFallbackLogger;
    this.#groups = new GroupCommitter(db, {
      outbox: this.#outbox,
      maxAttempts: options.maxAttempts ?? 5,
      maxGroup: options.maxGroup ?? 100,
      maxInFlight: options.maxInFlight ?? 4,
      publish: (events) => this.#publish(events),
    });
  }

  /**
   * Accepted or refused on its own, exactly as if appended alone after every append submitted before
   * it; appends arriving while a transaction is in flight share the next one (group commit).
   */
  async append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    const item = { streamId, events, options };
    validateAppend(item);
    const attributes = { ...APPEND_ATTRIBUTES, [ATTR.streamId]: streamId, [ATTR.eventCount]: events.length };
    return inChildSpan('event_store.append', { attributes }, async () => {
      const [result] = await this.#groups.submit([item]);
      return result;
    });
  }

  /** Every item in one transaction, all or nothing; results in item order. */
  async appendBatch(items: ReadonlyArray<AppendItem>): Promise<AppendResult[]> {
    items.forEach(validateAppend);
    if (items.length === 0) return [];
    return this.#groups.submit(items);
  }

  readStream(streamId: string, options?: ReadStreamOptions): Promise<StoredEvent[]> {
    return readStreamEvents(this.#db, streamId, options);
  }

  /** The stream's events with their chain links, as stored (see chain.ts, verifyChain). */
  readChain(streamId: string): Promise<ChainedEvent[]> {
    return readChain(this.#db, streamId);
  }

  /** The stream's current version: 0 when it has no events. */
  streamVersion(streamId: string): Promise<number> {
    return currentStreamVersion(this.#db, streamId);
  }

  /** Up to `limit` events after `after`, gap-safe (see readAllEvents), and the checkpoint to resume from. */
  async readAll(after: Checkpoint, limit: number): Promise<ReadAllPage> {
    assertReadAll(after, limit);
    return readAllEvents(this.#db, after, limit);
  }

  /** The highest committed position, 0 for an empty log. */
  headPosition(): Promise<number> {
    return maxPosition(this.#db);
  }

  /** Removes the outbox rows of events that have been published. */
  markPublished(positions: readonly number[]): Promise<void> {
    return deleteOutbox(this.#db, positions);
  }

  async #publish(events: StoredEvent[]): Promise<void> {
    if (!this.#afterCommit || events.length === 0) return;
    const positions = events.map((event) => event.position);
    try {
      await this.#afterCommit(events);
    } catch (error) {
      const note = this.#outbox ? 'the outbox relay will publish them' : 'no outbox: they stay unpublished';
      this.#logger.warn(`afterCommit failed; ${note}`, { error, positions });
      return;
    }
    if (!this.#outbox) return;
    await this.markPublished(positions).catch((error: unknown) => {
      this.#logger.warn('could not clear published outbox rows; the relay will publish them again', {
        error,
        positions,
      });
    });
  }
}

function assertReadAll(after: Checkpoint, limit: number): void {
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new InvalidArgumentError(`readAll limit must be a positive integer, got ${limit}`);
  assertCheckpoint(after);
}
