import type { ArchiveHooks, EventStoreDatabase } from '@flex/event-store';
import { sql, type Transaction } from 'kysely';
import type { ReadModelDatabase } from './read-models.table';

/**
 * What the read models keep of an archived run (docs/AUDIT.md § Retention): its `runs` row (status,
 * outcome, times) and its output, copied into `run_archives.summary` when it is archived so a
 * rebuild puts them back; its plan versions, nodes and HITL requests go with its events.
 */
export const runArchiveHooks: ArchiveHooks = {
  async summarize(trx, runId, lastPosition) {
    // Locked: the runs projection cannot move the row between this read and the delete.
    const { rows } = await sql<{ runs: unknown; output: unknown }>`
      select to_jsonb(r) as runs,
        (select to_jsonb(o) from run_outputs o where o.run_id = r.run_id) as output
      from runs r where r.run_id = ${runId} and r.last_position >= ${lastPosition}
      for update of r`.execute(trx);
    return rows[0];
  },
  async afterDelete(trx, runId) {
    const db = trx.withTables<ReadModelDatabase>();
    for (const table of ['plan_versions', 'plan_nodes', 'hitl_requests'] as const)
      await db.deleteFrom(table).where('run_id', '=', runId).execute();
  },
};

/** After a rebuild's reset: archived runs' rows back from their summaries (their events are gone). */
export async function restoreArchivedRuns(trx: Transaction<EventStoreDatabase>): Promise<void> {
  await sql`
    insert into runs select (jsonb_populate_record(null::runs, summary -> 'runs')).* from run_archives
    where jsonb_typeof(summary -> 'runs') = 'object' on conflict do nothing`.execute(trx);
  await sql`
    insert into run_outputs
    select (jsonb_populate_record(null::run_outputs, summary -> 'output')).* from run_archives
    where jsonb_typeof(summary -> 'output') = 'object' on conflict do nothing`.execute(trx);
}
