import type { RunDetail } from '@flex/contracts';
import { randomUUID } from 'node:crypto';
import { getRunDetail } from './run-detail.query';
import { getRunDetailAt } from './run-detail-at.query';
import {
  ask,
  completed,
  decide,
  generated,
  nodeDone,
  nodeStart,
  requested,
  start,
  T0,
  updated,
  type Given,
} from './run-events.spec-helper';
import type { ReadModelDatabase } from './read-models.table';
import { createRunsProjection } from './runs.projection';
import { openReadModelsDb, readRunRows, runnerFor, type ReadModelsDb } from './runs.spec-helper';

describe.each(['postgres', 'pglite'] as const)('a run as of an event position (%s)', (kind) => {
  let db: ReadModelsDb;
  beforeAll(async () => {
    db = await openReadModelsDb(kind, 'run_detail_at');
  });
  afterAll(() => db.close());

  /**
   * Appends the run's events one by one, each after an event of another run (positions interleave),
   * and keeps what GET runs/:id showed once the read model had applied each of them.
   */
  async function recordRun(runId: string, events: Given[]): Promise<Map<number, RunDetail | undefined>> {
    const seen = new Map<number, RunDetail | undefined>();
    const projection = createRunsProjection();
    for (const [i, event] of events.entries()) {
      const other = `other-${randomUUID()}`;
      await db.store.append(`run-${other}`, [news(start(other), i)], { expectedVersion: 'no_stream' });
      const [stored] = (await db.store.append(`run-${runId}`, [news(event, i)], { expectedVersion: i }))
        .events;
      await runnerFor(db, projection).catchUpThrough(await db.store.headPosition());
      seen.set(stored.position, await getRunDetail(db.database.db, runId));
    }
    return seen;
  }

  it('is what GET runs/:id showed right after that event, and changes nothing', async () => {
    const runId = `travel-${kind}`;
    const seen = await recordRun(runId, [
      ...[start(runId), requested(1), generated(['a', 'b']), nodeStart('a'), nodeDone('a')],
      ...[ask('hitl-1', 'b'), decide('hitl-1', 'reject'), requested(2, 'replan'), updated(2, ['a', 'c'])],
      ...[nodeStart('c'), nodeDone('c'), completed],
    ]);
    const rowsNow = await readRunRows(db, runId);
    for (const [position, detail] of seen) {
      expect(await getRunDetailAt(db.database.db, runId, position)).toEqual(detail);
      // Between two of its events (another run's event there): still the earlier one's state.
      expect(await getRunDetailAt(db.database.db, runId, position + 1)).toEqual(detail);
    }
    const positions = [...seen.keys()];
    expect(await getRunDetailAt(db.database.db, runId, positions[0] - 1)).toBeUndefined();
    expect(await getRunDetailAt(db.database.db, runId, Number.MAX_SAFE_INTEGER)).toEqual(
      seen.get(positions[positions.length - 1]),
    );
    expect(await readRunRows(db, runId)).toEqual(rowsNow);
  });

  // Postgres only: PGlite has one connection, so no second writer can be in flight there.
  if (kind === 'postgres')
    it('neither waits for nor sees a projection writing the same run meanwhile', async () => {
      const runId = `busy-${kind}`;
      const seen = await recordRun(runId, [start(runId), requested(1), generated(['a']), nodeStart('a')]);
      const [position, detail] = [...seen].at(-1)!;
      const other = await db.database.db.startTransaction().execute();
      try {
        const rows = other.withTables<ReadModelDatabase>();
        await rows.updateTable('runs').set({ status: 'completed' }).where('run_id', '=', runId).execute();
        await rows
          .insertInto('run_outputs')
          .values({
            run_id: runId,
            output: '{"a":1}',
            plan_version: 1,
            completed_at: new Date().toISOString(),
          })
          .execute();
        expect(await getRunDetailAt(db.database.db, runId, position)).toEqual(detail);
      } finally {
        await other.rollback().execute();
      }
    });

  it('has nothing for a run that never was', async () => {
    expect(await getRunDetailAt(db.database.db, 'never-was', Number.MAX_SAFE_INTEGER)).toBeUndefined();
  });
});

/** The run event as appended: a second after T0 per step, so times differ between versions. */
function news(event: Given, step: number) {
  return {
    id: randomUUID(),
    ...event,
    metadata: { correlationId: 'c' },
    timestamp: new Date(T0 + step * 1_000).toISOString(),
  };
}
