import { sql } from 'kysely';
import { InvalidArgumentError } from './errors';
import type { Executor } from './read';
import { toPosition } from './rows';
import { Checkpoint, START_CHECKPOINT } from './types';

/**
 * Checkpoints of projections and store-backed consumers, one namespace for both. Plain functions
 * on a Kysely or a Transaction: a projection saves its checkpoint in the transaction of its writes.
 */
export async function loadCheckpoint(db: Executor, name: string): Promise<Checkpoint> {
  const row = await db
    .selectFrom('checkpoints')
    .select([sql<string>`transaction_id::text`.as('transaction_id'), 'position'])
    .where('name', '=', name)
    .executeTakeFirst();
  return row ? { transactionId: row.transaction_id, position: toPosition(row.position) } : START_CHECKPOINT;
}

export async function saveCheckpoint(db: Executor, name: string, checkpoint: Checkpoint): Promise<void> {
  assertCheckpoint(checkpoint);
  const values = { transaction_id: checkpoint.transactionId, position: checkpoint.position };
  await db
    .insertInto('checkpoints')
    .values({ name, ...values })
    .onConflict((oc) => oc.column('name').doUpdateSet({ ...values, updated_at: sql<Date>`now()` }))
    .execute();
}

/**
 * Loads a checkpoint and locks its row until the transaction ends, creating it at the start when
 * missing. A second instance blocks here, then reads the checkpoint the first one committed, so
 * two instances never process the same batch.
 */
export async function lockCheckpoint(trx: Executor, name: string): Promise<Checkpoint> {
  await ensureCheckpoint(trx, name);
  const row = await trx
    .selectFrom('checkpoints')
    .select([sql<string>`transaction_id::text`.as('transaction_id'), 'position'])
    .where('name', '=', name)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { transactionId: row.transaction_id, position: toPosition(row.position) };
}

/** Creates the checkpoint at the start when missing (so the lag gauge sees it before any batch). */
export async function ensureCheckpoint(db: Executor, name: string): Promise<void> {
  await db
    .insertInto('checkpoints')
    .values({ name, transaction_id: START_CHECKPOINT.transactionId, position: START_CHECKPOINT.position })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export function assertCheckpoint(checkpoint: Checkpoint): void {
  const valid =
    typeof checkpoint?.transactionId === 'string' &&
    /^\d{1,20}$/.test(checkpoint.transactionId) &&
    Number.isSafeInteger(checkpoint.position) &&
    checkpoint.position >= 0;
  if (!valid) throw new InvalidArgumentError(`not a checkpoint: ${JSON.stringify(checkpoint)}`);
}

/** Orders checkpoints as the log does: by transaction id (as a 64-bit number), then position. */
export function compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
  const tx = BigInt(a.transactionId) - BigInt(b.transactionId);
  if (tx !== 0n) return tx < 0n ? -1 : 1;
  return a.position - b.position;
}
