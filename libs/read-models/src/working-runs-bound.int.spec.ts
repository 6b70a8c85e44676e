import type { NewEvent } from '@flex/event-store';
import { evolveRun, initialRunState, type RunState } from '@flex/run-model';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { countWorkingRuns, workingRunsAtMost } from './queries';
import {
  completed,
  failed,
  generated,
  nodeDone,
  nodeStart,
  paused,
  requested,
  resumed,
  start,
  T0,
  type Given,
} from './run-events.spec-helper';
import { createRunsProjection } from './runs.projection';
import { openReadModelsDb, runnerFor, type ReadModelsDb } from './runs.spec-helper';

/** Each run goes through these appends in turn: planning, running, paused, running again, ended. */
const LIFECYCLE = (runId: string, owner: string, ends: Given): Given[][] => [
  [start(runId, owner), requested(1)],
  [generated(['a'])],
  [nodeStart('a')],
  [paused],
  [resumed],
  [nodeDone('a')],
  [ends],
];

type Step = { kind: 'advance'; run: number } | { kind: 'project' };

/**
 * The gateway admits a start without catching the read model up when workingRunsAtMost is below the
 * limit (runs.service.ts). That is only sound if the bound is never below the exact count a caught-up
 * model would give, whatever the model has applied so far: generated interleavings of runs of two
 * owners moving through their lifecycle (paused runs resuming among them) and projections catching
 * up, checked after every step against an independent fold of each run's events.
 */
describe.each(['postgres', 'pglite'] as const)('workingRunsAtMost (%s)', (kind) => {
  let db: ReadModelsDb;
  const projection = createRunsProjection();
  let clock = T0;
  let round = 0;

  beforeAll(async () => {
    db = await openReadModelsDb(kind, 'working_runs_bound');
  });
  afterAll(() => db.close());

  it('is never below the caught-up count, and equals it once the model has caught up', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(0, 1), { minLength: 1, maxLength: 5 }),
        fc.array(
          fc.oneof(
            { weight: 4, arbitrary: fc.nat({ max: 4 }).map((run): Step => ({ kind: 'advance', run })) },
            { weight: 1, arbitrary: fc.constant<Step>({ kind: 'project' }) },
          ),
          { maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 6 }),
        async (owners, steps, batchSize) => {
          round += 1;
          const owner = (o: number) => `owner-${kind}-${round}-${o}`;
          const runs = owners.map((o, i) => ({
            id: `bound-${kind}-${round}-${i}`,
            owner: owner(o),
            script: LIFECYCLE(`bound-${kind}-${round}-${i}`, owner(o), i % 2 ? failed : completed),
            done: 0,
            state: initialRunState() as RunState,
          }));
          const runner = runnerFor(db, projection, batchSize);
          const exact = (who: string) =>
            runs.filter((r) => r.owner === who && ['planning', 'running'].includes(r.state.status)).length;
          for (const step of steps) {
            if (step.kind === 'project') await runner.catchUp();
            else {
              const run = runs[step.run % runs.length];
              if (run.done === run.script.length) continue;
              const stored = await append(run.id, run.script[run.done]);
              run.state = stored.reduce(evolveRun, run.state);
              run.done += 1;
            }
            for (const who of [owner(0), owner(1)])
              expect(await workingRunsAtMost(db.database.db, who)).toBeGreaterThanOrEqual(exact(who));
          }
          await runner.catchUpThrough(await db.store.headPosition());
          for (const who of [owner(0), owner(1)]) {
            expect(await countWorkingRuns(db.database.db, who)).toBe(exact(who));
            expect(await workingRunsAtMost(db.database.db, who)).toBe(exact(who));
          }
        },
      ),
      { numRuns: kind === 'postgres' ? 40 : 25 },
    );
  }, 120_000);

  it('gives up (Infinity, so the caller counts exactly) past 1,000 events behind, not before', async () => {
    const runner = runnerFor(db, projection, 500);
    const who = `owner-${kind}-behind`;
    await append(`behind-${kind}`, [start(`behind-${kind}`, who), requested(1)]);
    await runner.catchUpThrough(await db.store.headPosition());
    expect(await workingRunsAtMost(db.database.db, who)).toBe(1);
    const filler = (n: number) =>
      Array.from({ length: n }, () => ({
        id: randomUUID(),
        type: 'spec_filler',
        payload: {},
        metadata: { correlationId: 'filler' },
      }));
    await db.store.append(`filler-${kind}`, filler(1000), { expectedVersion: 'no_stream' });
    expect(await workingRunsAtMost(db.database.db, who)).toBe(1);
    await db.store.append(`filler-${kind}`, filler(1), { expectedVersion: 1000 });
    expect(await workingRunsAtMost(db.database.db, who)).toBe(Number.POSITIVE_INFINITY);
    await runner.catchUpThrough(await db.store.headPosition());
    expect(await workingRunsAtMost(db.database.db, who)).toBe(1);
  }, 120_000);

  async function append(runId: string, events: Given[]) {
    const version = await db.store.streamVersion(`run-${runId}`);
    const news: NewEvent[] = events.map((e) => ({
      id: randomUUID(),
      ...e,
      metadata: { correlationId: `c-${runId}` },
      timestamp: new Date((clock += 1_000)).toISOString(),
    }));
    const result = await db.store.append(`run-${runId}`, news, {
      expectedVersion: version === 0 ? 'no_stream' : version,
    });
    return result.events;
  }
});
