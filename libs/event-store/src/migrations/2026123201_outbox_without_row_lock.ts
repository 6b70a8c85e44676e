import { Kysely, sql } from 'kysely';

/**
 * The outbox's reference to its event (2026112203_outbox) kept by who writes and who deletes, not by
 * a foreign key checked per outbox row. On insert that check looked the event up and locked it (FOR
 * KEY SHARE, which writes the lock into the new event's tuple and a WAL record): a cost on every
 * event of a distributed append, for a check that cannot fail and a lock that guards nothing:
 *
 * - Outbox rows are written only by the append (`flex_append_run`, 2026122701_append_many_sets), in
 *   the statement that inserts their events, from the positions that insert took. No outbox row is
 *   written for an event that exists already, so no other transaction can see, or delete, its event
 *   before both commit.
 * - Events are deleted only by retention (`archiveRun`): the append-only trigger refuses every other
 *   delete, and truncation. An event's outbox row commits with it, so a delete that sees the event
 *   sees its outbox row too: the trigger now refuses such a delete, with the foreign key's SQLSTATE,
 *   as the foreign key did (retention checks first that the run has none, and waits).
 *
 * Were an outbox row without its event ever written by hand, the relay would publish nothing for it
 * and delete it (readEventsAt finds no event at that position).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table outbox drop constraint outbox_position_fkey`.execute(db);
  await sql`
    create or replace function flex_events_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        if exists (select 1 from outbox o where o.position = old.position) then
          raise exception 'event % is not published yet (it has an outbox row): it may not be deleted',
            old.position using errcode = 'foreign_key_violation';
        end if;
        if exists (
          select 1 from run_archives a where a.stream_id = old.stream_id and a.last_version >= old.version
        ) then
          return old;
        end if;
      end if;
      raise exception 'events are append-only: % is not allowed', tg_op using errcode = 'raise_exception';
    end
    $$`.execute(db);
}
