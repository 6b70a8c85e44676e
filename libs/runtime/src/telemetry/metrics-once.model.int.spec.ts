import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { createDatabase, migrateToLatest, type EventStore, type FlexDatabase } from '@flex/event-store';
import { createTestDatabase, parsePrometheusText, sampleSum, type TestDatabase } from '@flex/testing';
import { FlexMetrics } from './metrics';
import { measuredStore } from './metrics-store';

const ENDINGS = ['complete', 'run_failed', 'run_cancelled'] as const;
type Ending = (typeof ENDINGS)[number];
const COUNTER: Record<Ending | 'start', string> = {
  start: 'flex_runs_started_total',
  complete: 'flex_runs_completed_total',
  run_failed: 'flex_runs_failed_total',
  run_cancelled: 'flex_runs_cancelled_total',
};

interface Step {
  process: number;
  stream: number;
  /** start: append `start` (a start sent again reuses its key); an ending: end the run if it is running. */
  act: 'start' | Ending;
  /** An ending: re-send this process's last ending append of the stream, if it sent one. */
  retry: boolean;
}

const step = fc.record({
  process: fc.integer({ min: 0, max: 2 }),
  stream: fc.integer({ min: 0, max: 2 }),
  act: fc.constantFrom('start' as const, ...ENDINGS),
  retry: fc.boolean(),
});

/**
 * Model: three processes share one Postgres store, each counting what its own appends commit. Starts
 * sent again, endings raced by several processes at once (optimistic concurrency picks one), and
 * idempotent retries, in any interleaving: summed over the processes, each run is counted started
 * once and ended once, in the outcome its stream records.
 */
describe('each run counted once, whichever process ends it (Postgres, model)', () => {
  let testDb: TestDatabase;
  let database: FlexDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase('metrics-once');
    database = await createDatabase({ url: testDb.url, poolSize: 10 });
    await migrateToLatest(database.db);
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  const quiet = { warn: () => undefined };

  type Append = Parameters<EventStore['append']>;

  /**
   * One step by one process. A retry re-sends that process's last ending append of the stream as it
   * was (same key, same expected version), as a redelivered handler does; it may find it stored.
   */
  async function perform(store: EventStore, sent: Map<string, Append>, streamId: string, s: Step) {
    const event = {
      id: randomUUID(),
      type: s.act,
      payload: { code: 'node_failed' },
      metadata: { correlationId: 'c' },
    };
    if (s.act === 'start')
      return store.append(streamId, [event], {
        expectedVersion: 'no_stream',
        idempotencyKey: `start:${streamId}`,
      });
    const earlier = sent.get(`${s.process}:${streamId}`);
    if (s.retry && earlier) return store.append(...earlier);
    const stored = await store.readStream(streamId);
    if (stored.length === 0 || stored.some((e) => (ENDINGS as readonly string[]).includes(e.type))) return;
    const key = `end:${streamId}:${s.process}:${stored.length}`;
    const append: Append = [streamId, [event], { expectedVersion: stored.length, idempotencyKey: key }];
    sent.set(`${s.process}:${streamId}`, append);
    return store.append(...append);
  }

  it('sums to one start and one ending per run, in the recorded outcome', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 }),
        async (batches) => {
          const run = randomUUID().slice(0, 8);
          const metrics = [0, 1, 2].map(() => new FlexMetrics({ service: 'model' }));
          const stores = metrics.map((m) => measuredStore(database.db, m, quiet, {}));
          const sent = [0, 1, 2].map(() => new Map<string, Append>());
          try {
            for (const batch of batches)
              await Promise.allSettled(
                batch.map((s) => perform(stores[s.process], sent[s.process], `run-${run}-${s.stream}`, s)),
              );
            const expected = { start: 0, complete: 0, run_failed: 0, run_cancelled: 0 };
            for (let stream = 0; stream < 3; stream++) {
              const types = (await stores[0].readStream(`run-${run}-${stream}`)).map((e) => e.type);
              for (const type of types) expected[type as keyof typeof expected] += 1;
            }
            const scrapes = await Promise.all(
              metrics.map(async (m) => parsePrometheusText(await m.render())),
            );
            const counted = Object.fromEntries(
              Object.entries(COUNTER).map(([act, name]) => [
                act,
                scrapes.reduce((n, s) => n + sampleSum(s, name), 0),
              ]),
            );
            expect(counted).toEqual(expected);
          } finally {
            await Promise.all(metrics.map((m) => m.shutdown()));
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});
