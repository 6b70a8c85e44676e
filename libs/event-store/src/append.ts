import { IdempotencyKeyConflictError, InvalidAppendError, WrongExpectedVersionError } from './errors';
import { insertOutbox } from './outbox';
import { currentStreamVersion, Executor, readEventsAt } from './read';
import { toPosition, toStoredEvent } from './rows';
import type { AppendOptions, AppendResult, ExpectedVersion, NewEvent } from './types';

/** One stream's share of an append (appendBatch takes several of these). */
export interface AppendItem {
  streamId: string;
  events: readonly NewEvent[];
  options: AppendOptions;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Appends one item inside the caller's transaction. The idempotency key is claimed first, so two
 * writers racing with the same key queue on the key's row: the second sees the first's commit and
 * returns its events as a duplicate, whatever their expected versions say.
 */
export async function appendInTransaction(
  trx: Executor,
  item: AppendItem,
  outbox: boolean,
): Promise<AppendResult> {
  const key = item.options.idempotencyKey;
  if (key !== undefined && !(await claimKey(trx, key, item.streamId))) {
    return loadDuplicate(trx, key, item.streamId);
  }
  const current = await currentStreamVersion(trx, item.streamId);
  checkExpectedVersion(item.streamId, item.options.expectedVersion, current);
  if (item.events.length === 0) return { duplicate: false, events: [], nextVersion: current };
  const rows = await trx
    .insertInto('events')
    .values(item.events.map((event, i) => toInsert(item.streamId, current + i + 1, event)))
    .returning(['position', 'id', 'stream_id', 'version', 'type', 'payload', 'metadata', 'recorded_at'])
    .execute();
  const events = rows.map((row) => toStoredEvent(row)).sort((a, b) => a.version - b.version);
  const positions = events.map((event) => event.position);
  if (key !== undefined)
    await trx.updateTable('idempotency_keys').set({ positions }).where('key', '=', key).execute();
  if (outbox) await insertOutbox(trx, positions);
  return { duplicate: false, events, nextVersion: current + events.length };
}

export function validateAppend(item: AppendItem): void {
  if (typeof item.streamId !== 'string' || item.streamId.length === 0)
    throw new InvalidAppendError('streamId must be a non-empty string');
  const expected = item.options?.expectedVersion;
  const numeric = typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0;
  if (!numeric && expected !== 'any' && expected !== 'no_stream') {
    throw new InvalidAppendError(
      `stream ${item.streamId}: expectedVersion must be a version >= 0, 'any' or 'no_stream'`,
    );
  }
  const key = item.options.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0)) {
    throw new InvalidAppendError(`stream ${item.streamId}: idempotencyKey must be a non-empty string`);
  }
  for (const event of item.events) {
    if (!UUID.test(event.id))
      throw new InvalidAppendError(`stream ${item.streamId}: event id ${event.id} is not a UUID`);
    if (typeof event.type !== 'string' || event.type.length === 0)
      throw new InvalidAppendError(`event ${event.id}: type must be a non-empty string`);
    if (event.timestamp !== undefined && Number.isNaN(Date.parse(event.timestamp))) {
      throw new InvalidAppendError(`event ${event.id}: timestamp ${event.timestamp} is not ISO-8601`);
    }
  }
}

export function checkExpectedVersion(streamId: string, expected: ExpectedVersion, actual: number): void {
  if (expected === 'any') return;
  const wanted = expected === 'no_stream' ? 0 : expected;
  if (wanted !== actual) throw new WrongExpectedVersionError(streamId, expected, actual);
}

function toInsert(streamId: string, version: number, event: NewEvent) {
  return {
    id: event.id,
    stream_id: streamId,
    version,
    type: event.type,
    payload: JSON.stringify(event.payload ?? null),
    metadata: JSON.stringify(event.metadata ?? {}),
    recorded_at: event.timestamp,
  };
}

/** True when this transaction now owns the key; false when a committed append already used it. */
async function claimKey(trx: Executor, key: string, streamId: string): Promise<boolean> {
  const claimed = await trx
    .insertInto('idempotency_keys')
    .values({ key, stream_id: streamId })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .executeTakeFirst();
  return claimed !== undefined;
}

async function loadDuplicate(trx: Executor, key: string, streamId: string): Promise<AppendResult> {
  const record = await trx
    .selectFrom('idempotency_keys')
    .select(['stream_id', 'positions'])
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  if (record.stream_id !== streamId) throw new IdempotencyKeyConflictError(key, record.stream_id, streamId);
  const events = await readEventsAt(trx, record.positions.map(toPosition));
  return { duplicate: true, events, nextVersion: await currentStreamVersion(trx, streamId) };
}
