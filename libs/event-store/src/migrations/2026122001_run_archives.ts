import { Kysely, sql } from 'kysely';

/**
 * Retention (docs/AUDIT.md § Retention): `run_archives` keeps, for each archived run, where its
 * events went and the chain head they must verify against. The append-only trigger now lets one
 * thing through: deleting the events of a stream whose archive row (written in the same
 * transaction, after the archive was read back and verified) covers their version. Nothing may be
 * appended to an archived stream.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table run_archives (
      stream_id text primary key,
      run_id text not null,
      last_version integer not null check (last_version > 0),
      last_position bigint not null,
      event_count integer not null,
      head_hash text not null,
      signature jsonb,
      location text not null,
      summary jsonb not null,
      finished_at timestamptz not null,
      archived_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create or replace function flex_events_append_only() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        if exists (
          select 1 from run_archives a where a.stream_id = old.stream_id and a.last_version >= old.version
        ) then
          return old;
        end if;
      end if;
      raise exception 'events are append-only: % is not allowed', tg_op using errcode = 'raise_exception';
    end
    $$`.execute(db);
  await sql`
    create function flex_events_not_archived() returns trigger language plpgsql as $$
    begin
      if exists (select 1 from run_archives a where a.stream_id = new.stream_id) then
        raise exception 'stream % is archived: nothing may be appended to it', new.stream_id
          using errcode = 'raise_exception';
      end if;
      return new;
    end
    $$`.execute(db);
  await sql`
    create trigger events_not_archived before insert on events
    for each row execute function flex_events_not_archived()`.execute(db);
}
