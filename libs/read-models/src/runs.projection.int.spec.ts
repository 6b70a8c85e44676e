import type { NewEvent, Projection } from '@flex/event-store';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { getRunDetail } from './run-detail.query';
import {
  ask,
  completed,
  decide,
  failed,
  generated,
  nodeDone,
  nodeFailed,
  nodeStart,
  paused,
  requested,
  resumed,
  start,
  T0,
  updated,
  type Given,
} from './run-events.spec-helper';
import { createRunsProjection } from './runs.projection';
import {
  expectedRunRows,
  openReadModelsDb,
  readRunRows,
  runnerFor,
  type ReadModelsDb,
} from './runs.spec-helper';

describe.each(['postgres', 'pglite'] as const)('runs read model, a fold of evolveRun (%s)', (kind) => {
  let db: ReadModelsDb;
  let clock = T0;
  const versions = new Map<string, number>();

  beforeAll(async () => {
    db = await openReadModelsDb(kind, 'runs_projection');
  });
  afterAll(() => db.close());

  /** Appends to the run's stream, a second apart, expecting the version it is at. */
  async function append(runId: string, ...events: Given[]) {
    const at = versions.get(runId) ?? 0;
    const news: NewEvent[] = events.map((e) => ({
      id: randomUUID(),
      ...e,
      metadata: { correlationId: `c-${runId}` },
      timestamp: new Date((clock += 1_000)).toISOString(),
    }));
    await db.store.append(`run-${runId}`, news, { expectedVersion: at === 0 ? 'no_stream' : at });
    versions.set(runId, at + events.length);
  }
  const expected = async (runId: string) => expectedRunRows(runId, await db.store.readStream(`run-${runId}`));
  const projection = createRunsProjection();
  const catchUp = async () => runnerFor(db, projection).catchUpThrough(await db.store.headPosition());

  it("a run that fails closes its open requests: pending and decided ones read 'cancelled'", async () => {
    const runId = `failed-${kind}`;
    await append(runId, start(runId), requested(1), generated(['a', 'b']));
    await append(runId, ask('hitl-1'), decide('hitl-1', 'approve'), ask('hitl-2'), paused, ask('hitl-3'));
    await append(runId, decide('hitl-3', 'reject'));
    await catchUp();
    const waiting = await getRunDetail(db.database.db, runId);
    expect(waiting?.run.status).toBe('paused');
    expect(waiting?.hitlRequests.map((h) => [h.requestId, h.status, h.decision])).toEqual([
      ['hitl-1', 'resolved', 'approve'],
      ['hitl-2', 'pending', null],
      ['hitl-3', 'decided', 'reject'],
    ]);

    await append(runId, failed);
    await catchUp();
    const detail = await getRunDetail(db.database.db, runId);
    expect(detail?.run).toMatchObject({
      status: 'failed',
      failure: { code: 'agent_failed', reason: 'gave up' },
    });
    expect(detail?.hitlRequests.map((h) => [h.requestId, h.status, h.decision])).toEqual([
      ['hitl-1', 'resolved', 'approve'],
      ['hitl-2', 'cancelled', null],
      ['hitl-3', 'cancelled', null],
    ]);
    const failedAt = detail?.run.updatedAt;
    expect(detail?.hitlRequests.map((h) => h.resolvedAt === failedAt)).toEqual([false, true, true]);
    expect(await readRunRows(db, runId)).toEqual(await expected(runId));
  });

  it('a decision made while paused reads decided, and resolved once the resume applies it', async () => {
    const runId = `paused-${kind}`;
    await append(runId, start(runId), requested(1), generated(['a']), ask('hitl-1'), paused);
    await append(runId, decide('hitl-1', 'approve'));
    await catchUp();
    expect((await getRunDetail(db.database.db, runId))?.hitlRequests[0]).toMatchObject({ status: 'decided' });
    await append(runId, resumed);
    await catchUp();
    const detail = await getRunDetail(db.database.db, runId);
    expect(detail?.run.status).toBe('running');
    expect(detail?.hitlRequests[0]).toMatchObject({ status: 'resolved', decision: 'approve' });
    expect(detail?.hitlRequests[0].resolvedAt).toBe(detail?.run.updatedAt);
    expect(await readRunRows(db, runId)).toEqual(await expected(runId));
  });

  it('nodes follow the current plan; a completed run has its output and the observed satisfaction', async () => {
    const runId = `replanned-${kind}`;
    await append(runId, start(runId), requested(1), generated(['a', 'b']), nodeStart('a'), nodeDone('a'));
    await append(runId, nodeStart('b'), nodeFailed('b', 1, true), ask('hitl-1', 'b'));
    await catchUp();
    expect((await readRunRows(db, runId)).nodes).toMatchObject({
      a: { status: 'completed', attempt: 1, output: { aOut: 'out of a' } },
      b: { status: 'awaiting_hitl', attempt: 1, error: { code: 'agent_error' } },
    });
    await append(runId, decide('hitl-1', 'reject'), requested(2, 'replan'), updated(2, ['a', 'c']));
    await append(runId, nodeStart('c'), nodeDone('c'), completed, {
      type: 'log',
      payload: { level: 'info', message: 'after' },
    });
    await catchUp();
    const rows = await readRunRows(db, runId);
    expect(Object.keys(rows.nodes).sort()).toEqual(['a', 'c']);
    expect(rows.run).toMatchObject({ status: 'completed', plan_version: 2, satisfaction_score: 0.7 });
    expect(rows.run).toMatchObject({ observed_satisfaction: 0.8, last_event_type: 'log' });
    expect(rows.output).toMatchObject({ output: { a: 1 }, plan_version: 2 });
    expect(rows.planVersions).toEqual([1, 2]);
    expect(rows).toEqual(await expected(runId));
  });

  it('events after the end change nothing but the position: a run_failed after a cancel is no failure', async () => {
    const runId = `ended-${kind}`;
    await append(runId, start(runId), requested(1), generated(['a']), ask('hitl-1'));
    await append(runId, {
      type: 'run_cancelled',
      payload: { cancelledBy: 'op', from: 'awaiting_hitl', closedHitlRequests: ['hitl-1'] },
    });
    await append(runId, failed, generated(['z']));
    await catchUp();
    const rows = await readRunRows(db, runId);
    expect(rows.run).toMatchObject({
      status: 'cancelled',
      failure_code: null,
      last_event_type: 'plan_generated',
    });
    expect(rows.hitl['hitl-1']).toMatchObject({ status: 'cancelled' });
    expect(Object.keys(rows.nodes)).toEqual(['a']);
    expect(rows).toEqual(await expected(runId));
  });

  it('a cache left behind, a batch rolled back, a rebuild, a cache too small: the same rows', async () => {
    const runs = ['r1', 'r2', 'r3'].map((r) => `${r}-${kind}`);
    const [r1, r2, r3] = runs;
    await append(r1, start(r1), requested(1));
    await append(r2, start(r2), requested(1), generated(['a', 'b']));
    await append(r1, generated(['a']), ask('hitl-1'), paused);
    await append(r3, start(r3), requested(1), generated(['a']), nodeStart('a'));
    await catchUp();
    // Another instance takes a turn: the first one's cache is left behind (hitl-1 pending there).
    await append(r2, nodeStart('a'), nodeDone('a'), ask('hitl-9'), decide('hitl-9', 'approve'));
    await append(r1, decide('hitl-1', 'reject'), resumed);
    await runnerFor(db, createRunsProjection(), 2).catchUpThrough(await db.store.headPosition());
    await append(r1, failed);
    await catchUp();
    expect((await readRunRows(db, r1)).hitl['hitl-1']).toMatchObject({
      status: 'resolved',
      decision: 'reject',
    });
    // A batch that fails after applying r2's complete rolls back: the cache is then ahead of the rows.
    await append(r3, nodeFailed('a', 1, false), failed);
    await append(r2, nodeStart('b'), nodeDone('b'), completed);
    await expect(
      runnerFor(db, failingOnce(projection, 5), 2).catchUpThrough(await db.store.headPosition()),
    ).rejects.toMatchObject({
      code: 'PROJECTION_FAILED',
    });
    await runnerFor(db, projection, 2).catchUpThrough(await db.store.headPosition());
    expect((await readRunRows(db, r2)).output).toMatchObject({ output: { a: 1 } });
    const incremental = await Promise.all(runs.map((runId) => readRunRows(db, runId)));
    for (const [i, runId] of runs.entries()) expect(incremental[i]).toEqual(await expected(runId));

    for (const rebuilt of [createRunsProjection(), createRunsProjection({ cacheSize: 1 })]) {
      await runnerFor(db, rebuilt, 7).rebuild('runs');
      expect(await Promise.all(runs.map((runId) => readRunRows(db, runId)))).toEqual(incremental);
    }
  });

  it('any batch size gives the rows of the independent model (a batch writes its rows combined)', async () => {
    const runIds = [...versions.keys()];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 3 }),
        async (size, cache) => {
          await runnerFor(db, createRunsProjection({ cacheSize: cache }), size).rebuild('runs');
          for (const runId of runIds) expect(await readRunRows(db, runId)).toEqual(await expected(runId));
        },
      ),
      { numRuns: 12 },
    );
  });
});

/** The projection, failing (after its writes) on the `nth` event it applies, once. */
function failingOnce(inner: Projection, nth: number): Projection {
  let seen = 0;
  return {
    name: inner.name,
    reset: (trx) => inner.reset(trx),
    async apply(trx, event) {
      await inner.apply(trx, event);
      if (++seen === nth) throw new Error('the batch fails after this event was applied');
    },
  };
}
