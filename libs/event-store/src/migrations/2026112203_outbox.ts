import { Kysely, sql } from 'kysely';

/** Positions of committed events not yet published; `claimed_until` is a relay instance's lease. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('outbox')
    .addColumn('position', 'bigint', (col) => col.primaryKey().references('events.position'))
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn('claimed_until', 'timestamptz')
    .execute();
}
