import { archiveRun, DirectoryArchiveStore, type NewEvent } from '@flex/event-store';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runArchiveHooks } from './archived-runs';
import { getRunDetail } from './run-detail.query';
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
import { listRuns } from './run-list.query';
import { createRunsProjection } from './runs.projection';
import { openReadModelsDb, readRunRows, runnerFor, type ReadModelsDb } from './runs.spec-helper';

describe.each(['postgres', 'pglite'] as const)('an archived run in the read models (%s)', (kind) => {
  let db: ReadModelsDb;
  let dir: string;
  const projection = createRunsProjection();

  beforeAll(async () => {
    db = await openReadModelsDb(kind, 'archived_runs');
    dir = await mkdtemp(join(tmpdir(), 'flex-archived-runs-'));
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function appendRun(runId: string, events: Given[]): Promise<void> {
    const news: NewEvent[] = events.map((e, i) => ({
      id: randomUUID(),
      ...e,
      metadata: { correlationId: `c-${runId}` },
      timestamp: new Date(T0 + i * 1_000).toISOString(),
    }));
    await db.store.append(`run-${runId}`, news, { expectedVersion: 'no_stream' });
  }
  const catchUp = async () => runnerFor(db, projection).catchUpThrough(await db.store.headPosition());
  const archive = (runId: string) =>
    archiveRun(db.database.db, `run-${runId}`, {
      archives: new DirectoryArchiveStore(dir),
      hooks: runArchiveHooks,
    });

  it('waits for the read models, then keeps the summary and output, drops the rest, and survives a rebuild', async () => {
    const runId = `archived-${kind}`;
    await appendRun(runId, [
      ...[start(runId), requested(1), generated(['a', 'b']), nodeStart('a'), nodeDone('a')],
      ...[ask('hitl-1', 'b'), decide('hitl-1', 'reject'), requested(2, 'replan'), updated(2, ['a', 'c'])],
      ...[nodeStart('c'), nodeDone('c'), completed],
    ]);
    expect(await archive(runId)).toMatchObject({
      status: 'skipped',
      reason: 'the read models have not applied its last event yet',
    });
    await catchUp();
    const before = (await getRunDetail(db.database.db, runId))!;
    expect(before.planVersions).toHaveLength(2);

    expect(await archive(runId)).toMatchObject({ status: 'archived', events: 12 });
    const after = (await getRunDetail(db.database.db, runId))!;
    expect(after.run).toEqual(before.run);
    expect(after.output?.output).toEqual(before.output?.output);
    expect(after).toMatchObject({ planVersions: [], nodes: [], hitlRequests: [], latestSnapshot: null });
    const rows = await readRunRows(db, runId);
    expect(rows).toMatchObject({ nodes: {}, hitl: {}, planVersions: [] });

    await runnerFor(db, projection).rebuild('runs');
    expect((await getRunDetail(db.database.db, runId))?.run).toEqual(before.run);
    expect((await getRunDetail(db.database.db, runId))?.output?.output).toEqual(before.output?.output);
    const listed = await listRuns(db.database.db, { limit: 50 });
    expect(listed.runs.map((r) => r.runId)).toContain(runId);
  });
});
