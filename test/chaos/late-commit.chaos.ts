import { randomUUID } from 'node:crypto';
import {
  EventStore,
  OutboxRelay,
  ProjectionRunner,
  type AppendResult,
  type FlexDatabase,
  type StoredEvent,
} from '@flex/event-store';
import { createRunsProjection } from '@flex/read-models';
import { FlexMetrics, projectionLag } from '@flex/runtime';
import { parsePrometheusText, sampleSum, waitFor } from '@flex/testing';
import { sql } from 'kysely';
import {
  appliedCounts,
  chaosNumber,
  countingProjection,
  openChaosDb,
  readModelRows,
  report,
  runEvents,
  type ChaosDb,
} from './chaos-support';

const HOLD_MS = chaosNumber('FLEX_CHAOS_HOLD_MS', { full: 60_000, ci: 3_000 });
/** Runs appended (3 events each) every 100 ms while the transaction is held. */
const RUNS_PER_TICK = 2;

/**
 * The sequence-gap problem at length: one transaction takes its positions, then stays open for
 * HOLD_MS while other appends take higher positions and commit; then it commits. The projection
 * runner (the real runs projection, and a counting one) and the outbox relay must each see every
 * event exactly once, the late ones included, and the metrics must show the lag while it lasts.
 */
describe(`chaos: a transaction held open ${HOLD_MS} ms commits out of order`, () => {
  let chaos: ChaosDb;
  let holderDb: FlexDatabase;
  let heldDb: FlexDatabase;

  beforeAll(async () => {
    chaos = await openChaosDb('chaos_late_commit');
    [holderDb, heldDb] = await Promise.all([chaos.connect(1), chaos.connect(2)]);
  });
  afterAll(() => chaos?.close());

  it(
    'the projections and the outbox relay see the late events once; the lag shows, then clears',
    async () => {
      const started = Date.now();
      const consumers = startConsumers(chaos.database);
      const { store, runner, published, lag } = consumers;
      let holder: KeyHolder | undefined;
      try {
        // Nothing applied yet: a first poll (as start() does) and the lag gauge has the projection.
        await runner.catchUp();
        holder = await holdKey(holderDb);
        const { committed } = await holdLateAppend(chaos, heldDb, holder.key);
        const since = Date.now();
        const appended: AppendResult[] = [];
        const samples: Lag[] = [];
        // Appends commit after the held one took its positions, for HOLD_MS (bounded by the clock).
        for (let tick = 0; Date.now() - since < HOLD_MS; tick++) {
          for (let i = 0; i < RUNS_PER_TICK; i++) appended.push(await appendRun(store));
          if (tick % 5 === 4) samples.push(await lag());
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        // Everything after the held transaction waits behind it: nothing was skipped past it.
        const duringHold = await lag();
        const countedDuring = (await appliedCounts(chaos.database, 'counted')).size;
        const publishedDuring = published.size;
        const heldMs = Date.now() - since;
        await holder.release();
        const late = await committed;

        const all = [...late, ...appended.flatMap((r) => r.events)];
        await caughtUp(runner, all);
        await waitFor(async () => all.every((e) => published.has(e.id)) || undefined, 30_000);
        const after = await lag();
        const counted = await appliedCounts(chaos.database, 'counted');
        const rows = await readModelRows(chaos.database);

        report('transaction held open, committed out of order', {
          heldMs,
          lateEvents: late.length,
          latePositions: [late[0].position, late[5].position],
          committedAfterIt: appended.length * 3,
          appliedDuringHold: countedDuring,
          publishedDuringHold: publishedDuring,
          lagEventsDuringHold: duringHold.events,
          lagEventsMax: Math.max(duringHold.events, ...samples.map((s) => s.events)),
          lagSecondsMax: Math.max(duringHold.seconds, ...samples.map((s) => s.seconds)),
          lagAfter: after,
          applied: counted.size,
          published: published.size,
          durationMs: Date.now() - started,
        });
        expect(late[0].position).toBeLessThan(Math.min(...appended.map((r) => r.events[0].position)));
        expect(late[5].position).toBeGreaterThan(Math.max(...appended.map((r) => r.events[2].position)));
        expect(countedDuring).toBe(0);
        expect(duringHold.events).toBeGreaterThan(0);
        expect(after).toEqual({ events: 0, seconds: 0 });
        // Reconcile: every event applied once and published once; one runs row per run started.
        const ids = all.map((e) => e.id).sort();
        expect([...counted.keys()].sort()).toEqual(ids);
        expect([...counted.values()].every((n) => n === 1)).toBe(true);
        expect([...published.keys()].sort()).toEqual(ids);
        expect([...published.values()].every((n) => n === 1)).toBe(true);
        expect(rows.runs).toHaveLength(appended.length + 2);
        expect(rows.runs.every((row) => JSON.parse(row as string).status === 'failed')).toBe(true);
      } finally {
        await holder?.release(); // never leave it open: it holds back the whole server's horizon
        await consumers.stop();
      }
    },
    HOLD_MS + 90_000,
  );
});

interface Lag {
  events: number;
  seconds: number;
}

/** The real consumers of the log, polling fast: projections (runs, counted), outbox relay, lag gauge. */
function startConsumers(database: FlexDatabase) {
  const db = database.db;
  const store = new EventStore(db, { outbox: true });
  const projections = [createRunsProjection(), countingProjection('counted')];
  const runner = new ProjectionRunner(db, store, projections, { batchSize: 50, pollMs: 50 });
  const published = new Map<string, number>();
  const options = { intervalMs: 50, minAgeMs: 0, batchSize: 50 };
  const relay = new OutboxRelay(db, store, async (events) => count(published, events), options);
  const metrics = new FlexMetrics({ service: 'chaos' });
  metrics.watchGauges(projectionLag(db));
  runner.start();
  relay.start();
  return {
    store,
    runner,
    published,
    /** The runs projection's lag, from a scrape of the metrics. */
    lag: async (): Promise<Lag> => {
      const scrape = parsePrometheusText(await metrics.render());
      const of = (name: string) => sampleSum(scrape, name, { projection: 'runs' });
      return { events: of('flex_projection_lag_events'), seconds: of('flex_projection_lag_seconds') };
    },
    stop: async () => {
      await Promise.all([runner.stop(), relay.stop()]);
      await metrics.shutdown();
    },
  };
}

async function caughtUp(runner: ProjectionRunner, events: readonly StoredEvent[]): Promise<void> {
  const last = Math.max(...events.map((e) => e.position));
  await waitFor(async () => (await runner.catchUpThrough(last, 1_000)) || undefined, 30_000);
}

interface KeyHolder {
  key: string;
  /** Rolls the holder back (at once, and again harmlessly): the test's finally always calls it. */
  release(): Promise<void>;
}

/**
 * Another connection inserts an idempotency key and keeps its transaction open: an append claiming
 * that key waits on it. Released (rolled back), the waiting append claims the key and goes on.
 */
async function holdKey(holderDb: FlexDatabase): Promise<KeyHolder> {
  const key = `chaos-hold-${randomUUID()}`;
  let releaseHolder!: () => void;
  const released = new Promise<void>((resolve) => (releaseHolder = resolve));
  let holding!: () => void;
  const holds = new Promise<void>((resolve) => (holding = resolve));
  const holder = holderDb.db
    .transaction()
    .execute(async (trx) => {
      await sql`insert into idempotency_keys (key, stream_id, positions) values (${key}, 'holder', '{}')`.execute(
        trx,
      );
      holding();
      await released;
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      holding();
      if (!(error instanceof RolledBack)) throw error;
    });
  await holds;
  return { key, release: () => (releaseHolder(), holder) };
}

/**
 * Two runs appended in one transaction (appendBatch) through a real EventStore. The first run's
 * append takes its positions, then waits on the held key; the second one's runs once the key is
 * released, after the others committed: late events with lower positions, and late events with a
 * lower transaction id but higher positions (a caught-up checkpoint then sits below the head
 * position). Resolves once the transaction waits, with the promise of its events (they commit when
 * the key is released): in an object, since an async function returning a promise would wait for it.
 */
async function holdLateAppend(
  chaos: ChaosDb,
  heldDb: FlexDatabase,
  key: string,
): Promise<{ committed: Promise<StoredEvent[]> }> {
  const [waits, after] = [randomUUID(), randomUUID()];
  const heldStore = new EventStore(heldDb.db, { outbox: true });
  const committed = heldStore.appendBatch([
    {
      streamId: `run-${waits}`,
      events: runEvents(waits),
      options: { expectedVersion: 'no_stream', idempotencyKey: key },
    },
    { streamId: `run-${after}`, events: runEvents(after), options: { expectedVersion: 'no_stream' } },
  ]);
  committed.catch(() => undefined); // awaited by the caller; a failure there fails the test
  // The held transaction has its id and the first run's positions once it waits on the key.
  await waitFor(async () => (await waitingOnALock(chaos)) || undefined, 10_000);
  return { committed: committed.then((results) => results.flatMap((result) => result.events)) };
}

class RolledBack extends Error {}

async function waitingOnALock(chaos: ChaosDb): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(chaos.database.db);
  return rows[0].n > 0;
}

async function appendRun(store: EventStore): Promise<AppendResult> {
  const runId = randomUUID();
  return store.append(`run-${runId}`, runEvents(runId), { expectedVersion: 'no_stream' });
}

function count(seen: Map<string, number>, events: StoredEvent[]): void {
  for (const event of events) seen.set(event.id, (seen.get(event.id) ?? 0) + 1);
}
