import type { Transaction } from 'kysely';
import type { EventStoreDatabase } from './event-store.table';
import type { StoredEvent } from './types';

/**
 * A read model fed from the log. `apply` and `reset` get the transaction that also saves the
 * projection's checkpoint: write only through it, and the model and its checkpoint move together.
 * `apply` must be deterministic in the event alone (no clock, no random ids) so a rebuild from
 * position 0 gives identical rows. The transaction is typed with the store's tables; a read model
 * adds its own with `trx.withTables<ItsTables>()` (types only: the same transaction; see FlexDatabase).
 */
export interface Projection {
  /** Unique; also the name of its checkpoint (shared namespace with store-backed consumers). */
  name: string;
  /** Event types to apply; others are skipped (the checkpoint still moves past them). All when absent. */
  handles?: readonly string[];
  /**
   * Event types whose payload this projection never reads (it may read their type, id, stream,
   * version, metadata and time): the runner may hand them over with the payload left out, and
   * reading it then throws PayloadLeftOutError. A read shared with other projections leaves out only
   * what none of them reads (a type a projection does not handle it does not read either).
   */
  unreadPayloads?: readonly string[];
  apply(trx: Transaction<EventStoreDatabase>, event: StoredEvent): Promise<void>;
  /**
   * A batch's handled events at once, in log order (used instead of `apply` when present): must leave
   * exactly the rows that applying them one by one would.
   */
  applyBatch?(trx: Transaction<EventStoreDatabase>, events: readonly StoredEvent[]): Promise<void>;
  /** Empties the read model, for a rebuild. */
  reset(trx: Transaction<EventStoreDatabase>): Promise<void>;
  /**
   * A rebuild's way in, used instead of `applyBatch` when present (after `reset`, in the rebuild's
   * transaction): the whole log is handed over batch by batch, and the projection may hold writes
   * across batches and make them when it likes (a run's row written once at its last state rather
   * than once per batch), as long as it leaves exactly the rows that applying the events one by one
   * would once `finish` resolves.
   */
  replay?(trx: Transaction<EventStoreDatabase>): ProjectionReplay;
}

/** A rebuild in progress (Projection.replay). */
export interface ProjectionReplay {
  /** The next handled events, in log order. May start writes and leave them running. */
  apply(events: readonly StoredEvent[]): Promise<void>;
  /** Makes every write still held or running; the rows are then all written. */
  finish(): Promise<void>;
  /**
   * Waits out any write still running, without starting one (the rebuild is failing: its
   * transaction is about to roll back). Never rejects.
   */
  abandon(): Promise<void>;
}
