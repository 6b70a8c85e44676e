import { Kysely, sql } from 'kysely';

/** Deliveries a consumer gave up on, with the whole event, so an operator can inspect and replay them. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('dead_letters')
    .addColumn('id', 'bigserial', (col) => col.primaryKey())
    .addColumn('consumer', 'text', (col) => col.notNull())
    .addColumn('event_id', 'uuid', (col) => col.notNull())
    .addColumn('stream_id', 'text', (col) => col.notNull())
    .addColumn('event_type', 'text', (col) => col.notNull())
    .addColumn('event_position', 'bigint', (col) => col.notNull())
    .addColumn('delivery_count', 'integer', (col) => col.notNull())
    .addColumn('reason', 'text', (col) => col.notNull())
    .addColumn('event', 'jsonb', (col) => col.notNull())
    .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('dead_letters_consumer_event_unique', ['consumer', 'event_id'])
    .execute();
}
