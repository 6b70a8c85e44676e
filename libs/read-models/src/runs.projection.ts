import { runIdFromStreamId } from '@flex/contracts';
import {
  readStreamEvents,
  type EventStoreDatabase,
  type Projection,
  type StoredEvent,
} from '@flex/event-store';
import { evolveRun, initialRunState, type RunState } from '@flex/run-model';
import type { Transaction } from 'kysely';
import type { ReadModelDatabase } from './read-models.table';
import { restoreArchivedRuns } from './archived-runs';
import { RunStateCache } from './run-state-cache';
import { RunRowWrites } from './run-rows.batch';
import { writeRunRows } from './run-rows.repository';

/** The runs projection's name, and so its checkpoint's. */
export const RUNS_PROJECTION = 'runs';

export interface RunsProjectionOptions {
  /** Runs whose latest state is kept in memory between their events. Default 1,000. */
  cacheSize?: number;
}

/**
 * runs, plan_versions, plan_nodes, run_outputs and hitl_requests, from the run streams. Each event
 * is folded with the run's own `evolveRun` and the rows are written from the state it gives: the
 * read model restates the lifecycle rules of `@flex/run-model`, it never has rules of its own.
 * A batch's row writes are combined per row and written with a few multi-row statements
 * (RunRowWrites). Each instance keeps its own cache: create one per database.
 */
export function createRunsProjection(options: RunsProjectionOptions = {}): Projection {
  const cache = new RunStateCache(options.cacheSize ?? 1_000);
  const applyBatch = async (trx: Transaction<EventStoreDatabase>, events: readonly StoredEvent[]) => {
    const writes = new RunRowWrites();
    for (const event of events) {
      const runId = runIdFromStreamId(event.streamId);
      if (runId === undefined) continue;
      const before = await stateBefore(trx, cache, runId, event);
      const after = evolveRun(before, event);
      writeRunRows(writes, runId, before, after, event);
      if (after.status !== 'none') cache.set(runId, after);
    }
    await writes.flush(trx.withTables<ReadModelDatabase>());
  };
  return {
    name: RUNS_PROJECTION,
    apply: (trx, event) => applyBatch(trx, [event]),
    applyBatch,
    async reset(trx) {
      cache.clear();
      const db = trx.withTables<ReadModelDatabase>();
      for (const table of ['hitl_requests', 'run_outputs', 'plan_nodes', 'plan_versions', 'runs'] as const)
        await db.deleteFrom(table).execute();
      await restoreArchivedRuns(trx);
    },
  };
}

/**
 * The run's state just before `event`: the cached one when it is at the previous version, else a
 * fold of the stream's earlier events, read in this transaction (after a restart, a rolled-back
 * batch, an eviction, or another instance's turn on the checkpoint).
 */
async function stateBefore(
  trx: Transaction<EventStoreDatabase>,
  cache: RunStateCache,
  runId: string,
  event: StoredEvent,
): Promise<RunState> {
  if (event.version <= 1) return initialRunState();
  const cached = cache.at(runId, event.version - 1);
  if (cached) return cached;
  const earlier = await readStreamEvents(trx, event.streamId, { beforeVersion: event.version });
  return earlier.reduce(evolveRun, initialRunState());
}
