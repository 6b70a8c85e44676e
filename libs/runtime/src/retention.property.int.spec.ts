import {
  archiveRun,
  DirectoryArchiveStore,
  findArchive,
  readArchivedChain,
  verifyChain,
  type ArchiveStore,
  type ChainedEvent,
} from '@flex/event-store';
import fc from 'fast-check';
import { sql } from 'kysely';
import { runRetentionCycle, type RetentionCycleOptions } from './retention';
import {
  appendRun,
  archiveRows,
  DAY,
  eventCount,
  NOW,
  openFixture,
  storedChains,
  type RetentionFixture,
  type RunShape,
} from './retention.spec-helper';

const AGE = 30 * DAY;

const shape: fc.Arbitrary<RunShape> = fc.record({
  ageMs: fc.oneof(fc.integer({ min: 0, max: 2 * AGE }), fc.constantFrom(AGE - 1, AGE, AGE + 1)),
  ending: fc.option(fc.constantFrom('complete' as const, 'run_failed' as const, 'run_cancelled' as const), {
    nil: undefined,
  }),
  steps: fc.integer({ min: 0, max: 4 }),
});

/** The run's events wherever they are now: still stored, or in its archive (checked against its head). */
async function eventsNow(t: RetentionFixture, archives: ArchiveStore, streamId: string) {
  const stored = await t.store.readChain(streamId);
  const record = await findArchive(t.database.db, streamId);
  if (!record) return { stored, archived: [] as ChainedEvent[] };
  const archived = await readArchivedChain(archives, record);
  expect(verifyChain(archived, record.head).ok).toBe(true);
  return { stored, archived };
}

describe('retention on postgres, for any runs and instances', () => {
  let t: RetentionFixture;
  let options: RetentionCycleOptions;

  beforeAll(async () => {
    t = await openFixture('postgres', 'retention_property');
    options = {
      settings: { ageMs: AGE, batch: 10_000 },
      archives: new DirectoryArchiveStore(t.dir),
      now: NOW,
    };
  });
  afterAll(() => t.close());

  it('archives exactly the finished runs older than the age; store plus archives is the original log', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(shape, { minLength: 1, maxLength: 8 }), async (shapes) => {
        const streams = await Promise.all(shapes.map((s) => appendRun(t.store, s)));
        const original = await storedChains(t.store, streams);
        await runRetentionCycle(t.database, options);
        for (const [i, streamId] of streams.entries()) {
          const due = shapes[i].ending !== undefined && shapes[i].ageMs > AGE;
          const { stored, archived } = await eventsNow(t, options.archives, streamId);
          expect({ streamId, archived: archived.length > 0 }).toEqual({ streamId, archived: due });
          expect([...archived, ...stored]).toEqual(original.get(streamId));
        }
      }),
      { numRuns: 25, verbose: true },
    );
  });

  it('archives each run once when instances race (with and without the cycle lock)', async () => {
    const second = await t.connect!();
    const streams = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        appendRun(t.store, { ageMs: 40 * DAY, ending: 'complete', steps: i % 3 }),
      ),
    );
    const original = await storedChains(t.store, streams);
    // Two cycles at once (the lock lets one through), and two direct archivers on every run at once.
    const cycles = [runRetentionCycle(t.database, options), runRetentionCycle(second, options)];
    const direct = streams.flatMap((s) => [
      archiveRun(t.database.db, s, options),
      archiveRun(second.db, s, options),
    ]);
    const settled = await Promise.allSettled([...cycles, ...direct]);
    expect(settled.filter((s) => s.status === 'rejected')).toEqual([]);
    const rows = (await archiveRows(t.database)).filter((r) => streams.includes(r.stream_id));
    expect(rows.map((r) => r.stream_id).sort()).toEqual([...streams].sort());
    for (const streamId of streams) {
      const { stored, archived } = await eventsNow(t, options.archives, streamId);
      expect(stored).toEqual([]);
      expect(archived).toEqual(original.get(streamId));
    }
  });
});

describe('retention on postgres under steady load', () => {
  let t: RetentionFixture;
  afterAll(() => t.close());

  it('keeps the events table bounded through many cycles, every archived run still verifying', async () => {
    t = await openFixture('postgres', 'retention_steady');
    // A cycle a day; runs are archived 2.5 days after they finish: at most three days of runs stay.
    const options = {
      settings: { ageMs: 2.5 * DAY, batch: 10_000 },
      archives: new DirectoryArchiveStore(t.dir),
    };
    const perCycle = 20;
    const cycles = 10;
    const [counts, sizes, all]: [number[], number[], string[]] = [[], [], []];
    for (let cycle = 0; cycle < cycles; cycle++) {
      const now = new Date(NOW.getTime() + cycle * DAY);
      const offset = NOW.getTime() - now.getTime();
      for (let i = 0; i < perCycle; i++)
        all.push(await appendRun(t.store, { ageMs: offset + 3_600_000, ending: 'complete', steps: 4 }));
      const report = await runRetentionCycle(t.database, { ...options, now });
      expect(report.failed).toEqual([]);
      await sql`vacuum events`.execute(t.database.db);
      counts.push(await eventCount(t.database));
      const { rows } = await sql<{ n: string }>`select pg_total_relation_size('events') as n`.execute(
        t.database.db,
      );
      sizes.push(Number(rows[0].n));
    }
    console.log(
      `events rows after each cycle: ${counts.join(', ')}\nevents bytes (after VACUUM): ${sizes.join(', ')}`,
    );
    const steady = counts.slice(3);
    expect(steady).toEqual(steady.map(() => 3 * perCycle * 6));
    expect(Math.max(...counts)).toBe(3 * perCycle * 6);
    // Freed pages are reused after VACUUM: the table (with its indexes) stays within twice its size
    // when it first held three days of runs, where keeping every run would have grown it 10/3 times.
    expect(Math.max(...sizes)).toBeLessThan(2 * sizes[2]);
    const archived = (await archiveRows(t.database)).map((r) => r.stream_id);
    expect(archived.sort()).toEqual(all.slice(0, (cycles - 3) * perCycle).sort());
    for (const streamId of archived) {
      const { stored, archived: events } = await eventsNow(t, options.archives, streamId);
      expect({ stored: stored.length, archived: events.length }).toEqual({ stored: 0, archived: 6 });
    }
  });
});
