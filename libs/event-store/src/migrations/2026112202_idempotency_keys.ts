import { Kysely, sql } from 'kysely';

/** An idempotency key and what its append stored: the stream and the positions of its events. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('key', 'text', (col) => col.primaryKey())
    .addColumn('stream_id', 'text', (col) => col.notNull())
    .addColumn('positions', sql`bigint[]`, (col) => col.notNull().defaultTo(sql`'{}'::bigint[]`))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
}
