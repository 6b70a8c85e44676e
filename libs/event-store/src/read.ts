import { Kysely, sql } from 'kysely';
import type { EventStoreDatabase } from './event-store.table';
import { toPayloadlessEvent, toPosition, toStoredEvent } from './rows';
import type { Checkpoint, ReadAllResult, StoredEvent } from './types';

/** A Kysely instance or a Transaction: every query here runs on whichever it is given. */
export type Executor = Kysely<EventStoreDatabase>;

export interface ReadStreamOptions {
  /** Only events with a version above this. */
  afterVersion?: number;
  /** Only events with a version below this (a stream as it was before that event). */
  beforeVersion?: number;
  /** Only events with a global position above this. */
  afterPosition?: number;
  limit?: number;
}

/** A page of the global log, with the checkpoint just after each event (to advance event by event). */
export interface ReadAllPage extends ReadAllResult {
  checkpoints: Checkpoint[];
}

function selectEvents(db: Executor) {
  return db
    .selectFrom('events')
    .select(['position', 'id', 'stream_id', 'version', 'type', 'payload', 'metadata', 'recorded_at']);
}

const NO_TYPES: ReadonlySet<string> = new Set();

/**
 * selectEvents with the payloads of `leaveOut`'s types left out (null): the server then neither
 * detoasts nor outputs them, and the client does not parse them.
 */
function selectEventsWithout(db: Executor, leaveOut: ReadonlySet<string>) {
  if (leaveOut.size === 0) return selectEvents(db);
  const types = sql.join([...leaveOut]);
  const payload = sql<unknown>`case when events.type in (${types}) then null else events.payload end`;
  return db
    .selectFrom('events')
    .select(['position', 'id', 'stream_id', 'version', 'type', 'metadata', 'recorded_at'])
    .select(payload.as('payload'));
}

/** A stream's events in version order, on a Kysely or a Transaction (a projection reads inside its own). */
export async function readStreamEvents(
  db: Executor,
  streamId: string,
  options: ReadStreamOptions = {},
): Promise<StoredEvent[]> {
  let query = selectEvents(db).where('stream_id', '=', streamId).orderBy('version');
  if (options.afterVersion !== undefined) query = query.where('version', '>', options.afterVersion);
  if (options.beforeVersion !== undefined) query = query.where('version', '<', options.beforeVersion);
  if (options.afterPosition !== undefined) query = query.where('position', '>', options.afterPosition);
  if (options.limit !== undefined) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => toStoredEvent(row));
}

export async function currentStreamVersion(db: Executor, streamId: string): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('version').as('version'))
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  return row?.version == null ? 0 : Number(row.version);
}

/**
 * Gap-safe tailing. Positions come from a sequence, so a transaction that took a lower position can
 * commit after one with a higher position; a reader that only remembered the highest position would
 * skip it for ever. Instead rows are read in (transaction_id, position) order, and only from
 * transactions below a horizon: every one of those that could write here has finished, and any
 * transaction that has not gets a larger xid, so nothing can later appear behind the returned
 * checkpoint. The horizon is the snapshot's xmin, unless that holds back committed rows, when
 * transactions open in other databases of the server are left out of it (`flex_events_horizon`, in
 * migration 2026123101): a long transaction of this database still holds the tail back until it
 * ends; one of another database no longer does. An empty page means "nothing more yet", not
 * "nothing more".
 *
 * The events of `leaveOut`'s types come without their payload (reading it throws PayloadLeftOutError),
 * for a reader that never reads them (Projection.unreadPayloads).
 */
export async function readAllEvents(
  db: Executor,
  after: Checkpoint,
  limit: number,
  leaveOut: ReadonlySet<string> = NO_TYPES,
): Promise<ReadAllPage> {
  const rows = await selectEventsWithout(db, leaveOut)
    // Aliased apart: ORDER BY a name that is also an output column sorts by the output (text!).
    .select(sql<string>`events.transaction_id::text`.as('transaction_text'))
    .where(
      sql<boolean>`(events.transaction_id, events.position) > (${after.transactionId}::xid8, ${after.position}::bigint)`,
    )
    .where(
      sql<boolean>`events.transaction_id < (select flex_events_horizon(${after.transactionId}::xid8, ${after.position}::bigint))`,
    )
    .orderBy('events.transaction_id')
    .orderBy('events.position')
    .limit(limit)
    .execute();
  const checkpoints = rows.map((row) => ({
    transactionId: row.transaction_text,
    position: toPosition(row.position),
  }));
  return {
    events: rows.map((row) => (leaveOut.has(row.type) ? toPayloadlessEvent(row) : toStoredEvent(row))),
    checkpoint: checkpoints[checkpoints.length - 1] ?? after,
    checkpoints,
  };
}

export async function readEventsAt(db: Executor, positions: readonly number[]): Promise<StoredEvent[]> {
  if (positions.length === 0) return [];
  const rows = await selectEvents(db)
    .where('position', 'in', [...positions])
    .orderBy('position')
    .execute();
  return rows.map((row) => toStoredEvent(row));
}

export async function maxPosition(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max('position').as('position'))
    .executeTakeFirst();
  return row?.position == null ? 0 : toPosition(row.position);
}
