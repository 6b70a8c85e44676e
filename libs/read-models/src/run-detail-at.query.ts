import { runStreamId, type RunDetail } from '@flex/contracts';
import { readStreamEvents, type EventStoreDatabase } from '@flex/event-store';
import { evolveRun, initialRunState } from '@flex/run-model';
import { sql, type Kysely } from 'kysely';
import { getRunDetail } from './run-detail.query';
import type { ReadModelDatabase } from './read-models.table';
import { RunRowWrites } from './run-rows.batch';
import { writeRunRows } from './run-rows.repository';

/** The run's read-model tables. */
const RUN_TABLES = ['runs', 'plan_versions', 'plan_nodes', 'hitl_requests', 'run_outputs'] as const;

/**
 * The run as of the event at `position` (time travel), shaped as `GET runs/:id` shows it: the run's
 * events up to that position are folded with the runs projection's own `evolveRun` and row writer
 * into the read-model tables, and read with `getRunDetail`; no rule is restated. The tables written
 * are temporary ones of the same names and shape, made in a transaction that is rolled back: they
 * hide the real ones from this transaction only, so nothing is changed, no projection waits on it,
 * and rows the projection commits meanwhile are never seen. A position past the run's last event
 * gives the run as of its last event; `undefined` when the run has no event at or before `position`.
 */
export async function getRunDetailAt(
  db: Kysely<EventStoreDatabase>,
  runId: string,
  position: number,
): Promise<RunDetail | undefined> {
  const trx = await db.startTransaction().execute();
  try {
    const events = (await readStreamEvents(trx, runStreamId(runId))).filter((e) => e.position <= position);
    if (events.length === 0) return undefined;
    // Temporary tables come first in the search path: from here on, these names are the copies.
    for (const table of RUN_TABLES)
      await sql`create temporary table ${sql.id(table)} (like ${sql.id(table)} including all)`.execute(trx);
    const writes = new RunRowWrites();
    let state = initialRunState();
    for (const event of events) {
      const after = evolveRun(state, event);
      writeRunRows(writes, runId, state, after, event);
      state = after;
    }
    await writes.flush(trx.withTables<ReadModelDatabase>());
    return await getRunDetail(trx, runId);
  } finally {
    await trx.rollback().execute();
  }
}
