import type { ColumnType, Generated } from 'kysely';
import type { EventMetadata, StoredEvent } from './types';

/** bigint columns: pg returns strings, PGlite numbers; rows.ts normalizes them to numbers. */
type BigIntColumn = string | number;
/** Written once, never updated: the type system refuses an update of an event column. */
type Immutable<Select, Insert = Select> = ColumnType<Select, Insert, never>;

export interface EventsTable {
  position: ColumnType<BigIntColumn, never, never>;
  id: Immutable<string>;
  stream_id: Immutable<string>;
  version: Immutable<number>;
  type: Immutable<string>;
  /** Inserted as JSON text so top-level arrays and strings survive the driver. */
  payload: Immutable<unknown, string>;
  metadata: Immutable<EventMetadata, string>;
  /** xid8 of the appending transaction, as text. Set by the database, never by the writer. */
  transaction_id: ColumnType<string, never, never>;
  recorded_at: Immutable<Date, string | undefined>;
  /** The chain (chain.ts): the predecessor's hash and this event's. Written by the append statement only. */
  prev_hash: ColumnType<string | null, never, never>;
  hash: ColumnType<string | null, never, never>;
}

export interface IdempotencyKeysTable {
  key: ColumnType<string, string, never>;
  stream_id: ColumnType<string, string, never>;
  positions: ColumnType<BigIntColumn[], number[] | undefined, number[]>;
  created_at: Generated<Date>;
}

export interface OutboxTable {
  position: ColumnType<BigIntColumn, number, never>;
  created_at: Generated<Date>;
  claimed_until: ColumnType<Date | null, never, Date | null>;
}

export interface CheckpointsTable {
  name: string;
  transaction_id: string;
  position: ColumnType<BigIntColumn, number, number>;
  updated_at: Generated<Date>;
}

export interface DeadLettersTable {
  id: Generated<BigIntColumn>;
  consumer: string;
  event_id: string;
  stream_id: string;
  event_type: string;
  event_position: ColumnType<BigIntColumn, number, number>;
  delivery_count: number;
  reason: string;
  event: ColumnType<StoredEvent, string, string>;
  created_at: Generated<Date>;
}

/** A sealed secret value (see the 2026121204_secrets migration): written once, never updated. */
export interface SecretsTable {
  run_id: Immutable<string>;
  secret_id: Immutable<string>;
  key_id: Immutable<string>;
  sealed: Immutable<string>;
  created_at: Generated<Date>;
}

/** The store's own tables. Read models live beside them in the same database. */
export interface EventStoreDatabase {
  events: EventsTable;
  idempotency_keys: IdempotencyKeysTable;
  outbox: OutboxTable;
  checkpoints: CheckpointsTable;
  dead_letters: DeadLettersTable;
  secrets: SecretsTable;
}
