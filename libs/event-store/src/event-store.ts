import type { Kysely } from 'kysely';
import { ATTR, inChildSpan } from '@flex/tracing';
import { AppendItem, validateAppend } from './append';
import type { ChainedEvent } from './chain';
import { readChain } from './chain-read';
import { EventStoreError, InvalidArgumentError } from './errors';
import { assertCheckpoint } from './checkpoints';
import type { EventStoreDatabase } from './event-store.table';
import { GroupCommitter, type CommittedEvents } from './group-commit';
import { storeFallbackLogger, type StoreLogger } from './logger';
import { RecentStreams } from './recent-streams';
import { deleteOutbox } from './outbox';
import { OutboxSweep } from './outbox-sweep';
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
  /**
   * With an outbox: the rows of what afterCommit published are removed together, at most this long
   * after (one DELETE for every append published meanwhile; see OutboxSweep). Default 50.
   */
  outboxSweepMs?: number;
  logger?: StoreLogger;
  /** Attempts for an append that lost a race it can retry (an `any` append, a deadlock). Default 5. */
  maxAttempts?: number;
  /** Appends committed in one transaction at most (group commit). Default 100. */
  maxGroup?: number;
  /**
   * Groups in flight at once at most. Default 4; 1 for a sole writer (PGlite runs one statement at a
   * time: more in flight would only queue at its connection, and appends waiting there form no group).
   */
  maxInFlight?: number;
  /**
   * No one else appends to this database (PGlite, which one process opens): the store then keeps the
   * last events it appended to recent streams, so a reader of a stream's tail (readTail) need not
   * read back what was just written. Never set it for a server database.
   */
  soleWriter?: boolean;
}

/**
 * Told by a sole writer's store what its log gained, as it commits: a reader of the log (the
 * embedded bus) can take committed events from here instead of reading them back.
 */
export interface CommitFollower {
  /** Events committed by one group, in commit order, each with the checkpoint a gap-safe read gives. */
  committed(page: ReadAllPage): void;
  /** An append failed in a way that may have committed (not a refusal): read the log to know. */
  unsure(): void;
}

/**
 * What a sole writer keeps of what it appended (RecentStreams): whole runs (a few dozen events each)
 * for a few dozen runs at once, about 8 MB at the usual 2 KB an event. Kept to 8 events a stream,
 * a service meeting a run for the first time (no cached state) read the whole stream back.
 */
const RECENT_EVENTS = 4_096;
const RECENT_PER_STREAM = 512;

const APPEND_ATTRIBUTES = { [ATTR.dbSystem]: 'postgresql', [ATTR.dbOperation]: 'append' };

/** The append-only event log: optimistic concurrency, idempotent appends, gap-safe global reads. */
export class EventStore {
  readonly #db: Kysely<EventStoreDatabase>;
  readonly #outbox: boolean;
  readonly #afterCommit?: (events: StoredEvent[]) => Promise<void> | void;
  readonly #logger: StoreLogger;
  readonly #groups: GroupCommitter;
  readonly #recent: RecentStreams | undefined;
  readonly #followers = new Set<CommitFollower>();
  /** No one else appends to this database (EventStoreOptions.soleWriter). */
  readonly soleWriter: boolean;
  readonly #sweep: OutboxSweep | undefined;

  /** Where the store, and the runners reading it (projections, outbox relay), report what they handle. */
  get logger(): StoreLogger {
    return this.#logger;
  }

  constructor(db: Kysely<EventStoreDatabase>, options: EventStoreOptions = {}) {
    this.#db = db;
    this.#outbox = options.outbox ?? false;
    this.#afterCommit = options.afterCommit;
    this.#logger = options.logger ?? storeFallbackLogger;
    this.soleWriter = options.soleWriter ?? false;
    this.#recent = this.soleWriter ? new RecentStreams(RECENT_EVENTS, RECENT_PER_STREAM) : undefined;
    const sweepMs = options.outboxSweepMs ?? 50;
    if (!Number.isSafeInteger(sweepMs) || sweepMs < 0)
      throw new InvalidArgumentError(`outboxSweepMs must be an integer >= 0, got ${sweepMs}`);
    this.#sweep = this.#outbox
      ? new OutboxSweep((positions) => this.markPublished(positions), sweepMs, this.#logger)
      : undefined;
    this.#groups = new GroupCommitter(db, {
      outbox: this.#outbox,
      maxAttempts: options.maxAttempts ?? 5,
      maxGroup: options.maxGroup ?? 100,
      maxInFlight: options.maxInFlight ?? (this.soleWriter ? 1 : 4),
      publish: (committed) => this.#publish(committed),
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
      const [result] = await this.#submit([item]);
      return result;
    });
  }

  async #submit(items: ReadonlyArray<AppendItem>): Promise<AppendResult[]> {
    try {
      return await this.#groups.submit(items);
    } catch (error) {
      // A refusal (an EventStoreError: wrong expected version, a used key, an invalid event) wrote
      // nothing, and what is recent of the stream still holds; anything else (a lost connection at
      // commit) may have written: forget the streams, and have followers read the log.
      if (!(error instanceof EventStoreError)) {
        for (const item of items) this.#recent?.forget(item.streamId);
        this.#tell((follower) => follower.unsure());
      }
      throw error;
    }
  }

  /**
   * The stream's events after version `afterVersion` (`limit` at most), in version order. When this
   * store is its database's sole writer and appended them lately (see EventStoreOptions.soleWriter),
   * they are the events its appends returned, with no read: shared, so treat them as read-only.
   * Otherwise they are read from the database.
   */
  async readTail(streamId: string, afterVersion: number, limit?: number): Promise<readonly StoredEvent[]> {
    const recent = this.#recent?.after(streamId, afterVersion);
    if (recent) return limit === undefined ? recent : recent.slice(0, limit);
    return this.readStream(streamId, { afterVersion, limit });
  }

  /**
   * Forgets what this store keeps of the stream's recent appends: for a writer that removes the
   * stream's events outside the store (retention, archiveRun), so readTail reads what is left.
   */
  forgetStream(streamId: string): void {
    this.#recent?.forget(streamId);
  }

  /**
   * Tells `follower` what this store commits from now on, before the appends resolve and before
   * afterCommit. Only for a sole writer (otherwise others' commits would be missing): throws else.
   * Returns the function that stops it.
   */
  follow(follower: CommitFollower): () => void {
    if (!this.soleWriter) throw new InvalidArgumentError('only a sole writer can be followed');
    this.#followers.add(follower);
    return () => void this.#followers.delete(follower);
  }

  /** Every item in one transaction, all or nothing; results in item order. */
  async appendBatch(items: ReadonlyArray<AppendItem>): Promise<AppendResult[]> {
    items.forEach(validateAppend);
    if (items.length === 0) return [];
    return this.#submit(items);
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

  /** Removes at once the outbox rows that wait for the sweep (on close: else the relay republishes them). */
  flushPublished(): Promise<void> {
    return this.#sweep?.flush() ?? Promise.resolve();
  }

  /** Removes the outbox rows of events that have been published. */
  markPublished(positions: readonly number[]): Promise<void> {
    return deleteOutbox(this.#db, positions);
  }

  /** A follower's failure is its own: it never fails an append, nor keeps the others from being told. */
  #tell(tell: (follower: CommitFollower) => void): void {
    for (const follower of this.#followers) {
      try {
        tell(follower);
      } catch (error) {
        this.#logger.warn('a commit follower failed', { error });
      }
    }
  }

  async #publish({ events, checkpoints }: CommittedEvents): Promise<void> {
    this.#recent?.record(events);
    if (events.length > 0 && this.#followers.size > 0) {
      const page = { events, checkpoints, checkpoint: checkpoints[checkpoints.length - 1] };
      this.#tell((follower) => follower.committed(page));
    }
    if (!this.#afterCommit || events.length === 0) return;
    const positions = events.map((event) => event.position);
    try {
      await this.#afterCommit(events);
    } catch (error) {
      const note = this.#outbox ? 'the outbox relay will publish them' : 'no outbox: they stay unpublished';
      this.#logger.warn(`afterCommit failed; ${note}`, { error, positions });
      return;
    }
    this.#sweep?.add(positions);
  }
}

function assertReadAll(after: Checkpoint, limit: number): void {
  if (!Number.isSafeInteger(limit) || limit <= 0)
    throw new InvalidArgumentError(`readAll limit must be a positive integer, got ${limit}`);
  assertCheckpoint(after);
}
