import { Kysely, sql } from 'kysely';

/** Where each projection and store-backed consumer is in the log (a compound, gap-safe position). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('checkpoints')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('transaction_id', sql`xid8`, (col) => col.notNull())
    .addColumn('position', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}
