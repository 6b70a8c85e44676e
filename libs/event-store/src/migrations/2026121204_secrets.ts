import { Kysely, sql } from 'kysely';

/**
 * The secret store: what a run's envelope marked secret, sealed (AES-256-GCM), keyed by run and id.
 * The event log holds `{"$secret": id}` references only. `key_id` names the key a value was sealed
 * with, so a process holding another key says so instead of failing obscurely.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('secrets')
    .addColumn('run_id', 'text', (col) => col.notNull())
    .addColumn('secret_id', 'text', (col) => col.notNull())
    .addColumn('key_id', 'text', (col) => col.notNull())
    .addColumn('sealed', 'text', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('secrets_pkey', ['run_id', 'secret_id'])
    .execute();
}
