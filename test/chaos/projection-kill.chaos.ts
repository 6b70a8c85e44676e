import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { EventStore, loadCheckpoint, ProjectionRunner, type StoredEvent } from '@flex/event-store';
import { createRunsProjection } from '@flex/read-models';
import { startNodeProcess, type ManagedProcess } from '@flex/testing';
import {
  appliedCounts,
  chaosNumber,
  chaosSeed,
  countingProjection,
  mulberry32,
  openChaosDb,
  readModelRows,
  report,
  runEvents,
  type ChaosDb,
} from './chaos-support';

const KILLS = chaosNumber('FLEX_CHAOS_PROJECTION_KILLS', { full: 20, ci: 4 });
const RUNS_PER_ROUND = chaosNumber('FLEX_CHAOS_RUNS_PER_ROUND', { full: 100, ci: 20 });
const BATCH = 20;
const CHILD = join(__dirname, '../fixtures/chaos-projection.js');
const PROJECTIONS = ['runs', 'counted'] as const;

/**
 * A projection process killed (SIGKILL) right after an apply, its writes made and its checkpoint
 * not saved, again and again while runs keep being appended; then restarted to the end. Every event
 * is applied exactly once (the counting projection), and a rebuild from scratch equals the live
 * read model. Half the kills fall at the runner's beforeCheckpoint seam (a batch's writes all made,
 * its checkpoint not saved), the others mid-batch, right after an apply. Needs the built dist (npm run build), as the child process runs it.
 */
describe(`chaos: a projection killed between its writes and its checkpoint, ${KILLS} times`, () => {
  let chaos: ChaosDb;

  beforeAll(async () => (chaos = await openChaosDb('chaos_projection_kill')));
  afterAll(() => chaos?.close());

  it(
    'restarts where it committed, applies every event once, and a rebuild equals live',
    async () => {
      const started = Date.now();
      const store = new EventStore(chaos.database.db);
      const random = mulberry32(chaosSeed('projection kill'));
      const appended: StoredEvent[] = [];
      const kills: string[] = [];
      for (let round = 0; round < KILLS; round++) {
        appended.push(...(await appendRuns(store, RUNS_PER_ROUND)));
        const projection = PROJECTIONS[round % 2];
        // Never more than this round's events, all still unapplied: the kill always comes.
        const fresh = RUNS_PER_ROUND * 3;
        const killAt = round % 4 < 2 ? 'checkpoint' : 'apply';
        const after = 1 + Math.floor(random() * fresh);
        const child = spawnProjection(chaos, {
          CHAOS_KILL_PROJECTION: projection,
          CHAOS_KILL_AT: killAt,
          CHAOS_KILL_AFTER: String(after),
        });
        expect(await exited(child)).toBe('SIGKILL');
        const at = await loadCheckpoint(chaos.database.db, projection);
        kills.push(`${projection} at ${killAt} after ${after}: checkpoint ${at.position}`);
      }
      expect(await exited(spawnProjection(chaos, {}))).toBe(0);

      const live = await readModelRows(chaos.database);
      const counted = await appliedCounts(chaos.database, 'counted');
      const runner = new ProjectionRunner(
        chaos.database.db,
        store,
        [createRunsProjection(), countingProjection('counted')],
        {
          batchSize: 97,
        },
      );
      const rebuilt = { runs: await runner.rebuild('runs'), counted: await runner.rebuild('counted') };
      const afterRebuild = await readModelRows(chaos.database);
      const twice = [...counted.values()].filter((n) => n !== 1).length;

      report('projection killed between its writes and its checkpoint', {
        kills: KILLS,
        events: appended.length,
        runs: KILLS * RUNS_PER_ROUND,
        appliedOnce: [...counted.values()].filter((n) => n === 1).length,
        appliedTwice: twice,
        rebuiltEvents: rebuilt,
        rebuildEqualsLive: JSON.stringify(afterRebuild) === JSON.stringify(live),
        killPoints: kills.join(', '),
        durationMs: Date.now() - started,
      });
      expect([...counted.keys()].sort()).toEqual(appended.map((e) => e.id).sort());
      expect(twice).toBe(0);
      expect(live.runs).toHaveLength(KILLS * RUNS_PER_ROUND);
      expect(live.runs.every((row) => JSON.parse(row as string).status === 'failed')).toBe(true);
      expect(afterRebuild).toEqual(live);
      expect(await appliedCounts(chaos.database, 'counted')).toEqual(counted);
    },
    60_000 + KILLS * 20_000,
  );
});

async function appendRuns(store: EventStore, runs: number): Promise<StoredEvent[]> {
  const results = await Promise.all(
    Array.from({ length: runs }, () => {
      const runId = randomUUID();
      return store.append(`run-${runId}`, runEvents(runId), { expectedVersion: 'no_stream' });
    }),
  );
  return results.flatMap((result) => result.events);
}

function spawnProjection(chaos: ChaosDb, env: Record<string, string>): ManagedProcess {
  return startNodeProcess('chaos-projection', CHILD, {
    CHAOS_DATABASE_URL: chaos.url,
    CHAOS_BATCH: String(BATCH),
    ...env,
  });
}

/** How the child ended: its exit code, or the signal that killed it (bounded: 60 s). */
async function exited(child: ManagedProcess): Promise<number | string> {
  const timer = setTimeout(() => void child.kill(), 60_000);
  try {
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.child.once('exit', (c, s) => resolve([c, s])),
    );
    if (code !== 0 && signal !== 'SIGKILL') console.error(child.output());
    return signal ?? code ?? -1;
  } finally {
    clearTimeout(timer);
  }
}
