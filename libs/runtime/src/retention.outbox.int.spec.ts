import { DirectoryArchiveStore, EventStore, type FlexDatabase } from '@flex/event-store';
import fc from 'fast-check';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { runRetentionCycle } from './retention';
import { appendRun, BACKENDS, DAY, NOW, openFixture, type RetentionFixture } from './retention.spec-helper';

// The outbox's rows name their events without a foreign key (migration 2026123201): whatever runs
// are appended, published or not, and archived, with appends racing the cycle, no outbox row is ever
// left without its event, and no event with an outbox row is ever deleted.

const AGE = 30 * DAY;

interface RunPlan {
  ageMs: number;
  steps: number;
  /** Whether the relay has published its events (their outbox rows removed) before the cycle. */
  published: boolean;
}

const runPlan: fc.Arbitrary<RunPlan> = fc.record({
  ageMs: fc.integer({ min: 0, max: 2 * AGE }),
  steps: fc.integer({ min: 0, max: 3 }),
  published: fc.boolean(),
});

async function orphans(database: FlexDatabase): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from outbox o where not exists (select 1 from events e where e.position = o.position)
  `.execute(database.db);
  return rows[0].n;
}

async function unpublishedStreams(database: FlexDatabase): Promise<string[]> {
  const { rows } = await sql<{ stream_id: string }>`
    select distinct e.stream_id from outbox o join events e on e.position = o.position
  `.execute(database.db);
  return rows.map((r) => r.stream_id);
}

async function archivedStreams(database: FlexDatabase): Promise<string[]> {
  const { rows } = await sql<{ stream_id: string }>`select stream_id from run_archives`.execute(database.db);
  return rows.map((r) => r.stream_id);
}

describe.each(BACKENDS)('the outbox and retention on %s', (kind) => {
  let t: RetentionFixture;
  let outboxStore: EventStore;

  beforeAll(async () => {
    t = await openFixture(kind, `retention_outbox_${kind}`);
    outboxStore = new EventStore(t.database.db, { outbox: true, soleWriter: kind === 'pglite' });
  });
  afterAll(() => t.close());

  it('leaves no outbox row without its event, for any runs, publications and racing appends', async () => {
    const archives = new DirectoryArchiveStore(t.dir);
    await fc.assert(
      fc.asyncProperty(
        fc.array(runPlan, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        async (plans, racing) => {
          const streams: string[] = [];
          for (const plan of plans) {
            const streamId = await appendRun(outboxStore, { ...plan, ending: 'complete' });
            streams.push(streamId);
            if (!plan.published) continue;
            const { rows } = await sql<{ position: string }>`
              select o.position from outbox o join events e on e.position = o.position
              where e.stream_id = ${streamId}`.execute(t.database.db);
            await outboxStore.markPublished(rows.map((r) => Number(r.position)));
          }
          const unpublished = new Set(await unpublishedStreams(t.database));
          // Appends to some of the runs while the cycle archives them (refused once archived).
          const appends = racing.map((n) =>
            outboxStore.append(
              streams[n % streams.length],
              [{ id: randomUUID(), type: 'note', payload: { n }, metadata: { correlationId: 'spec' } }],
              { expectedVersion: 'any' },
            ),
          );
          const report = await runRetentionCycle(t.database, {
            settings: { ageMs: AGE, batch: 10_000 },
            archives,
            now: NOW,
            store: outboxStore,
          });
          await Promise.allSettled(appends);
          expect(report.failed).toEqual([]);
          expect(await orphans(t.database)).toBe(0);
          const archived = new Set(await archivedStreams(t.database));
          for (const streamId of streams)
            if (unpublished.has(streamId)) expect(archived.has(streamId)).toBe(false);
        },
      ),
      { numRuns: kind === 'postgres' ? 25 : 10 },
    );
  });

  it('refuses, as the foreign key did, to delete an event that still has its outbox row', async () => {
    const streamId = await appendRun(outboxStore, { ageMs: 2 * AGE, ending: 'complete', steps: 1 });
    // An archive row covering the stream: the append-only trigger would let the delete through.
    await sql`
      insert into run_archives (stream_id, run_id, last_version, last_position, event_count, head_hash,
        location, summary, finished_at)
      values (${streamId}, ${streamId}, 3, 0, 3, 'h', 'nowhere', '{}', now())`.execute(t.database.db);
    const deleted = sql`delete from events where stream_id = ${streamId}`.execute(t.database.db);
    await expect(deleted).rejects.toMatchObject({ code: '23503' });
    expect(await orphans(t.database)).toBe(0);
  });
});
