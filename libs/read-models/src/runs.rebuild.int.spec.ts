import type { NewEvent, Projection } from '@flex/event-store';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import {
  ask,
  completed,
  decide,
  drafted,
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
import { openReadModelsDb, runnerFor, type ReadModelsDb } from './runs.spec-helper';

/** What a run's events after its start may be (any order: the fold is total). */
const STEPS: Given[] = [
  requested(1),
  generated(['a', 'b']),
  updated(2, ['a', 'c']),
  nodeStart('a'),
  nodeDone('a'),
  nodeFailed('a', 1, true),
  nodeStart('b'),
  nodeDone('b'),
  ask('h1', 'a'),
  decide('h1', 'approve'),
  paused,
  resumed,
  completed,
  failed,
  drafted(1, ['a', 'b']),
];

/** A log: which run each event goes to and which step it is (a run's first event is its start). */
const logs = fc.array(fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: STEPS.length - 1 })), {
  minLength: 1,
  maxLength: 30,
});

describe.each(['postgres', 'pglite'] as const)('runs rebuild, replayed in stretches (%s)', (kind) => {
  let db: ReadModelsDb;
  let clock = T0;
  let round = 0;

  beforeAll(async () => {
    db = await openReadModelsDb(kind, 'runs_rebuild');
  });
  afterAll(() => db.close());

  /** Appends the log's events one by one (each its own transaction), to fresh runs. */
  async function append(log: ReadonlyArray<[number, number]>) {
    const versions = new Map<string, number>();
    round++;
    for (const [run, step] of log) {
      const runId = `rb${round}-${run}-${kind}`;
      const at = versions.get(runId) ?? 0;
      const given = at === 0 ? start(runId) : STEPS[step];
      const event: NewEvent = {
        id: randomUUID(),
        ...given,
        metadata: { correlationId: `c-${runId}` },
        timestamp: new Date((clock += 1_000)).toISOString(),
      };
      await db.store.append(`run-${runId}`, [event], { expectedVersion: at === 0 ? 'no_stream' : at });
      versions.set(runId, at + 1);
    }
  }

  /** Every row of the runs read model's tables, as JSON, sorted (to compare two rebuilds whole). */
  async function rows(): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const table of ['runs', 'plan_versions', 'plan_nodes', 'run_outputs', 'hitl_requests']) {
      const { rows } = await sql<{
        row: unknown;
      }>`select to_jsonb(t) as row from ${sql.table(table)} t`.execute(db.database.db);
      out[table] = rows.map((r) => JSON.stringify(r.row)).sort();
    }
    return out;
  }

  /**
   * Rebuilds until the rebuild has replayed the whole log: the gap-safe read stops short of any
   * transaction still open on the server (another suite's, in another database), for a while.
   */
  async function rebuildWhole(rebuild: () => Promise<number>) {
    const { rows } = await sql<{ n: string | number }>`select count(*) as n from events`.execute(
      db.database.db,
    );
    const total = Number(rows[0].n);
    const deadline = Date.now() + 10_000;
    while ((await rebuild()) !== total) {
      if (Date.now() > deadline) throw new Error(`a rebuild never saw all ${total} events`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /**
   * The projection applying one event at a time (no applyBatch, no replay): the fold one by one. It
   * declares no unread payloads, so its reads carry every payload (plan_drafted's included).
   */
  function oneByOne(): Projection {
    const inner = createRunsProjection();
    return { name: inner.name, apply: (trx, e) => inner.apply(trx, e), reset: (trx) => inner.reset(trx) };
  }

  it('a rebuild (batches read ahead, writes combined over stretches) leaves the rows of a one-by-one fold', async () => {
    await fc.assert(
      fc.asyncProperty(
        logs,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 3 }),
        async (log, batchSize, replayStretch, cacheSize) => {
          await append(log);
          const projection = createRunsProjection({ cacheSize, replayStretch });
          await rebuildWhole(() => runnerFor(db, projection, batchSize).rebuild('runs'));
          const rebuilt = await rows();
          await rebuildWhole(() => runnerFor(db, oneByOne(), 1).rebuild('runs'));
          expect(await rows()).toEqual(rebuilt);
        },
      ),
      { numRuns: 10 },
    );
  }, 180_000);

  it('a rebuild whose writes fail rolls back whole: the rows stay as they were', async () => {
    // Run 0 gets a plan with node b and starts it; run 1 follows it in the log.
    await append([
      [0, 0],
      [0, 0],
      [0, 1],
      [0, 6],
      [1, 0],
      [1, 0],
    ]);
    await rebuildWhole(() => runnerFor(db, createRunsProjection()).rebuild('runs'));
    const before = await rows();
    // From here on no row may be written for a node b: the stretch holding run 0's node b fails to
    // write while the next ones are folded, and the rebuild fails with it.
    await sql`alter table plan_nodes add constraint spec_no_b check (node_id <> 'b') not valid`.execute(
      db.database.db,
    );
    try {
      await expect(
        runnerFor(db, createRunsProjection({ replayStretch: 1 }), 2).rebuild('runs'),
      ).rejects.toMatchObject({ code: 'PROJECTION_FAILED' });
    } finally {
      await sql`alter table plan_nodes drop constraint spec_no_b`.execute(db.database.db);
    }
    expect(await rows()).toEqual(before);
  });
});
