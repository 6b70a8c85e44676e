import { randomUUID } from 'node:crypto';
import {
  createDatabase,
  migrateToLatest,
  saveCheckpoint,
  EventStore,
  START_CHECKPOINT,
  type FlexDatabase,
  type ReadAllPage,
  type NewEvent,
} from '@flex/event-store';
import {
  createTestDatabase,
  parsePrometheusText,
  sampleSum,
  waitFor,
  type TestDatabase,
} from '@flex/testing';
import { FlexMetrics } from './metrics';
import { projectionLag } from './metrics-lag';
import { measuredStore } from './metrics-store';

/** The measured store and the projection lag gauge on a real Postgres. */
describe('metrics of the event store (Postgres)', () => {
  let testDb: TestDatabase;
  let database: FlexDatabase;
  let metrics: FlexMetrics;

  beforeAll(async () => {
    testDb = await createTestDatabase('metrics-store');
    database = await createDatabase({ url: testDb.url });
    await migrateToLatest(database.db);
  }, 60_000);
  beforeEach(() => {
    metrics = new FlexMetrics({ service: 'test' });
  });
  afterEach(() => metrics.shutdown());
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
  });

  const warnings: unknown[] = [];
  const store = () => measuredStore(database.db, metrics, { warn: (_m, data) => warnings.push(data) }, {});
  const event = (type: string, payload: unknown, timestamp?: string): NewEvent => ({
    id: randomUUID(),
    type,
    payload,
    metadata: { correlationId: 'c' },
    ...(timestamp ? { timestamp } : {}),
  });
  const scraped = async (name: string, labels: Record<string, string> = {}) =>
    sampleSum(parsePrometheusText(await metrics.render()), name, labels);

  it('counts an event appended twice under one idempotency key once, and times every append', async () => {
    const s = store();
    const streamId = `run-${randomUUID()}`;
    const start = [event('start', {})];
    await s.append(streamId, start, { expectedVersion: 'no_stream', idempotencyKey: `k-${streamId}` });
    const again = await s.append(streamId, start, {
      expectedVersion: 'any',
      idempotencyKey: `k-${streamId}`,
    });
    expect(again.duplicate).toBe(true);
    expect(await scraped('flex_runs_started_total')).toBe(1);
    expect(await scraped('flex_event_store_append_duration_seconds_count', { outcome: 'ok' })).toBe(2);
    await expect(s.append(streamId, [event('log', {})], { expectedVersion: 0 })).rejects.toThrow();
    expect(await scraped('flex_event_store_append_duration_seconds_count', { outcome: 'error' })).toBe(1);
  });

  it.each([
    ['the process that began them (from what it committed)', 'here'],
    ['another process (from the store)', 'elsewhere'],
    ['another process that read the stream first (from what it read)', 'read'],
  ] as const)(
    'observes a run duration from its start and a HITL wait from its request, ended by %s',
    async (_, where) => {
      const s = store();
      const other = store();
      const streamId = `run-${randomUUID()}`;
      await s.append(
        streamId,
        [
          event('start', {}, '2026-01-01T00:00:00.000Z'),
          event('hitl_request', { requestId: 'other' }, '2026-01-01T00:00:01.000Z'),
          event('hitl_request', { requestId: 'h-1' }, '2026-01-01T00:00:02.000Z'),
        ],
        { expectedVersion: 'no_stream' },
      );
      if (where === 'read') expect(await other.readTail(streamId, 0)).toHaveLength(3);
      await (where === 'here' ? s : other).append(
        streamId,
        [
          event('hitl_resolved', { requestId: 'h-1', decision: 'approve' }, '2026-01-01T00:00:32.000Z'),
          event('complete', {}, '2026-01-01T00:01:40.000Z'),
        ],
        { expectedVersion: 3 },
      );
      // Committed or read here: known without a lookup, so observed before the append returns.
      if (where !== 'elsewhere') expect(await scraped('flex_run_duration_seconds_count')).toBe(1);
      await waitFor(async () => (await scraped('flex_run_duration_seconds_count')) === 1, 5_000);
      await waitFor(async () => (await scraped('flex_hitl_wait_seconds_count')) === 1, 5_000);
      expect(await scraped('flex_run_duration_seconds_sum', { outcome: 'completed' })).toBe(100);
      expect(await scraped('flex_hitl_wait_seconds_sum', { decision: 'approve' })).toBe(30);
      expect(warnings).toEqual([]);
    },
  );

  it('reads projection lag per checkpoint: events past it and the age of the oldest, 0 when caught up', async () => {
    const s = store();
    const streamId = `run-${randomUUID()}`;
    const old = new Date(Date.now() - 90_000).toISOString();
    const [first] = (
      await s.append(streamId, [event('start', {}, old), event('log', {}), event('log', {})], {
        expectedVersion: 'no_stream',
      })
    ).events;
    // Real checkpoints, as a tailer takes them: the one just before `first`, and the last one.
    const page = await readAllOf(database);
    const at = page.events.findIndex((e) => e.id === first.id);
    await saveCheckpoint(database.db, 'behind', at === 0 ? START_CHECKPOINT : page.checkpoints[at - 1]);
    await saveCheckpoint(database.db, 'caught-up', page.checkpoint);
    const readings = await projectionLag(database.db)();
    const of = (projection: string, family: string) =>
      readings.find((r) => r.family === family && r.labels.projection === projection)?.value;
    expect(of('behind', 'projectionLagEvents')).toBe(3);
    expect(of('behind', 'projectionLagSeconds')).toBeGreaterThanOrEqual(89);
    expect(of('caught-up', 'projectionLagEvents')).toBe(0);
    expect(of('caught-up', 'projectionLagSeconds')).toBe(0);
    metrics.watchGauges(projectionLag(database.db));
    expect(await scraped('flex_projection_lag_events', { projection: 'behind' })).toBe(3);
  });
});

/** The whole log in one page (this spec's database holds a few events only). */
function readAllOf(database: FlexDatabase): Promise<ReadAllPage> {
  return new EventStore(database.db).readAll(START_CHECKPOINT, 10_000);
}
