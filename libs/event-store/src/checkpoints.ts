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

/** Several checkpoints in one statement (START_CHECKPOINT for a name without a row). */
export async function loadCheckpoints(
  db: Executor,
  names: readonly string[],
): Promise<Map<string, Checkpoint>> {
  const rows = names.length
    ? await db
        .selectFrom('checkpoints')
        .select(['name', sql<string>`transaction_id::text`.as('transaction_id'), 'position'])
        .where('name', 'in', names)
        .execute()
    : [];
  return checkpointMap(names, rows);
}

/** Saves several checkpoints in one statement (in a projection batch's transaction). */
export async function saveCheckpoints(db: Executor, saves: ReadonlyMap<string, Checkpoint>): Promise<void> {
  if (saves.size === 0) return;
  const rows = [...saves].map(([name, checkpoint]) => {
    assertCheckpoint(checkpoint);
    return { name, transaction_id: checkpoint.transactionId, position: checkpoint.position };
  });
  await db
    .insertInto('checkpoints')
    .values(rows)
    .onConflict((oc) =>
      oc.column('name').doUpdateSet((eb) => ({
        transaction_id: eb.ref('excluded.transaction_id'),
        position: eb.ref('excluded.position'),
        updated_at: sql<Date>`now()`,
      })),
    )
    .execute();
}

/**
 * Locks several checkpoint rows until the transaction ends (in name order, so two instances locking
 * overlapping sets cannot deadlock) and returns them; rows are created at the start when missing.
 */
export async function lockCheckpoints(
  trx: Executor,
  names: readonly string[],
): Promise<Map<string, Checkpoint>> {
  const select = () =>
    trx
      .selectFrom('checkpoints')
      .select(['name', sql<string>`transaction_id::text`.as('transaction_id'), 'position'])
      .where('name', 'in', names)
      .orderBy('name')
      .forUpdate()
      .execute();
  let rows = await select();
  if (rows.length < new Set(names).size) {
    for (const name of names) await ensureCheckpoint(trx, name);
    rows = await select();
  }
  return checkpointMap(names, rows);
}

function checkpointMap(
  names: readonly string[],
  rows: ReadonlyArray<{ name: string; transaction_id: string; position: string | number }>,
): Map<string, Checkpoint> {
  const byName = new Map(rows.map((r) => [r.name, r]));
  return new Map(
    names.map((name) => {
      const row = byName.get(name);
      const at = row
        ? { transactionId: row.transaction_id, position: toPosition(row.position) }
        : START_CHECKPOINT;
      return [name, at];
    }),
  );
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
