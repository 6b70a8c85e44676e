import { Kysely, sql } from 'kysely';

/**
 * `flex_events_horizon(after_tx, after_pos)`: the transaction id below which a gap-safe read of the
 * events after that checkpoint may return rows (see `readAllEvents`).
 *
 * The snapshot's xmin is the plain answer: every transaction below it has finished, and every one
 * not finished gets a larger xid. But xids are cluster-wide, so a transaction open in another
 * database of the server (a report, a dump, another application) held every tail of this one back
 * for as long as it stayed open: projections, the store-backed bus, and with them the capabilities a
 * planner sees. Only a transaction of this database can insert into this `events` table, so the
 * horizon is the least xid, in progress in the snapshot, of a backend not known to be connected to
 * another database (one whose database is unknown, or that has ended, counts as this one's), or the
 * snapshot's xmax when there is none.
 *
 * Why that is safe, though pg_stat_activity is read after the statement's snapshot was taken: a
 * backend's database never changes, and an xid is never handed out twice, so "this xid belongs to a
 * backend of another database" once seen stays true; every other in-progress xid bounds the horizon
 * as before. A stale pg_stat_activity (it is kept for the rest of a transaction once read) can only
 * miss backends, which makes the horizon lower, never higher.
 *
 * pg_stat_activity is read only when the xmin holds back a committed row after the checkpoint: an
 * index probe decides, so a tail that is not held back pays for that probe alone. STABLE: it sees the
 * calling statement's snapshot (pg_current_snapshot() is that snapshot).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function flex_events_horizon(after_tx xid8, after_pos bigint) returns xid8
    language plpgsql stable as $$
    declare
      v_snap constant pg_snapshot := pg_current_snapshot();
      v_xmin constant xid8 := pg_snapshot_xmin(v_snap);
      v_from_tx xid8 := after_tx;
      v_from_pos bigint := after_pos;
      v_foreign text[];
      v_horizon xid8;
    begin
      -- The first row after the checkpoint at or above the xmin: one index seek from the later of the
      -- two (positions start at 1). A bound on transaction_id beside the row comparison would walk
      -- the index from the checkpoint to its end; without the ORDER BY, a generic plan of an EXISTS
      -- scans the whole table (it expects a third of the rows to match).
      if v_xmin > after_tx then
        v_from_tx := v_xmin;
        v_from_pos := 0;
      end if;
      perform 1 from events
      where (transaction_id, position) > (v_from_tx, v_from_pos)
      order by transaction_id, position
      limit 1;
      if not found then
        return v_xmin;
      end if;
      -- The xids (32 bits, as pg_stat_activity shows them) of backends connected to other databases,
      -- read once: pg_stat_activity's own function, without the view's joins of roles and databases.
      select array_agg(a.backend_xid::text) into v_foreign
      from pg_stat_get_activity(null) a
      where a.backend_xid is not null and a.datid is not null
        and a.datid <> (select oid from pg_database where datname = current_database());
      select x into v_horizon
      from pg_snapshot_xip(v_snap) as x
      where v_foreign is null or not ((x::text::numeric % 4294967296)::text = any (v_foreign))
      order by x
      limit 1;
      return coalesce(v_horizon, pg_snapshot_xmax(v_snap));
    end
    $$
  `.execute(db);
}
