import { Kysely, sql } from 'kysely';

/**
 * The append-only log. `transaction_id` stamps each row with its writer's xid8 so tailers can
 * read gap-free (see read.ts); a trigger refuses UPDATE and DELETE so nothing rewrites history.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('position', 'bigserial', (col) => col.primaryKey())
    .addColumn('id', 'uuid', (col) => col.notNull())
    .addColumn('stream_id', 'text', (col) => col.notNull())
    .addColumn('version', 'integer', (col) => col.notNull().check(sql`version > 0`))
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('payload', 'jsonb', (col) => col.notNull())
    .addColumn('metadata', 'jsonb', (col) => col.notNull())
    .addColumn('transaction_id', sql`xid8`, (col) => col.notNull().defaultTo(sql`pg_current_xact_id()`))
    .addColumn('recorded_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('events_id_unique', ['id'])
    .addUniqueConstraint('events_stream_version_unique', ['stream_id', 'version'])
    .execute();
  await db.schema
    .createIndex('events_transaction_position_idx')
    .on('events')
    .columns(['transaction_id', 'position'])
    .execute();
  await sql`
    create function flex_events_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'events are append-only: % is not allowed', tg_op using errcode = 'raise_exception';
    end
    $$`.execute(db);
  await sql`
    create trigger events_append_only before update or delete on events
    for each row execute function flex_events_append_only()`.execute(db);
  await sql`
    create trigger events_no_truncate before truncate on events
    for each statement execute function flex_events_append_only()`.execute(db);
}
