import { runIdFromStreamId } from '@flex/contracts';
import {
  readStreamEvents,
  sentAhead,
  type EventStoreDatabase,
  type Projection,
  type ProjectionReplay,
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
  /** Events whose row writes a rebuild combines before writing them. Default 5,000 (ten batches of 500). */
  replayStretch?: number;
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
  const stretch = options.replayStretch ?? REPLAY_STRETCH;
  if (!Number.isSafeInteger(stretch) || stretch <= 0)
    throw new RangeError(`runs projection replayStretch must be a positive integer, got ${stretch}`);
  const applyBatch = async (trx: Transaction<EventStoreDatabase>, events: readonly StoredEvent[]) => {
    const writes = new RunRowWrites();
    await fold(trx, cache, events, writes);
    await writes.flush(trx.withTables<ReadModelDatabase>());
  };
  return {
    name: RUNS_PROJECTION,
    // A draft's payload (its plan and registry, half a run's bytes) is the validator's: the fold takes
    // only the event's id (withPlanDrafted), and writeRunRows reads no plan_drafted payload.
    unreadPayloads: ['plan_drafted'],
    apply: (trx, event) => applyBatch(trx, [event]),
    applyBatch,
    replay: (trx) => replay(trx, cache, stretch),
    async reset(trx) {
      cache.clear();
      const db = trx.withTables<ReadModelDatabase>();
      for (const table of ['hitl_requests', 'run_outputs', 'plan_nodes', 'plan_versions', 'runs'] as const)
        await db.deleteFrom(table).execute();
      await restoreArchivedRuns(trx);
    },
  };
}

/** Folds `events` (in log order) into the row writes they make, on top of the cached states. */
async function fold(
  trx: Transaction<EventStoreDatabase>,
  cache: RunStateCache,
  events: readonly StoredEvent[],
  writes: RunRowWrites,
): Promise<void> {
  for (const event of events) {
    const runId = runIdFromStreamId(event.streamId);
    if (runId === undefined) continue;
    const before = knownStateBefore(cache, runId, event) ?? (await foldedStateBefore(trx, event));
    const after = evolveRun(before, event);
    writeRunRows(writes, runId, before, after, event);
    if (after.status !== 'none') cache.set(runId, after);
  }
}

/**
 * Events whose row writes a rebuild combines before writing them (ten batches of 500): a run's rows
 * are written once per such stretch, at their state at its end, instead of once per batch.
 */
const REPLAY_STRETCH = 5_000;

/**
 * A rebuild: writes are combined over a stretch of `stretch` events (RunRowWrites, as for one batch),
 * then made while the next stretch is folded. One stretch's writes run at a time, in log
 * order (each starts once the one before has ended), so the rows are those of applyBatch on each
 * stretch in turn: those of the events applied one by one.
 */
function replay(
  trx: Transaction<EventStoreDatabase>,
  cache: RunStateCache,
  stretch: number,
): ProjectionReplay {
  const db = trx.withTables<ReadModelDatabase>();
  let writes = new RunRowWrites();
  let held = 0;
  /** The writes of the stretches before, running or done. */
  let writing: Promise<void> = Promise.resolve();
  const write = () => {
    const full = writes;
    writing = sentAhead(writing.then(() => full.flush(db)));
    writes = new RunRowWrites();
    held = 0;
  };
  return {
    async apply(events) {
      await fold(trx, cache, events, writes);
      held += events.length;
      if (held < stretch) return;
      // One stretch written at a time (what is held in memory stays bounded).
      await writing;
      write();
    },
    async finish() {
      write();
      await writing;
    },
    async abandon() {
      await writing.catch(() => undefined);
    },
  };
}

/**
 * The run's state just before `event` when it is known without reading: the initial one before a
 * stream's first event, the cached one when it is at the previous version. (Not async: awaiting it
 * for every event of a rebuild cost a promise and a turn each.)
 */
function knownStateBefore(cache: RunStateCache, runId: string, event: StoredEvent): RunState | undefined {
  if (event.version <= 1) return initialRunState();
  return cache.at(runId, event.version - 1);
}

/**
 * The run's state just before `event` from a fold of the stream's earlier events, read in this
 * transaction (after a restart, a rolled-back batch, an eviction, or another instance's turn on the
 * checkpoint).
 */
async function foldedStateBefore(
  trx: Transaction<EventStoreDatabase>,
  event: StoredEvent,
): Promise<RunState> {
  const earlier = await readStreamEvents(trx, event.streamId, { beforeVersion: event.version });
  return earlier.reduce(evolveRun, initialRunState());
}
