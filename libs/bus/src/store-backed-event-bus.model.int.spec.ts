import {
  createDatabase,
  createEventLog,
  EventStore,
  migrateToLatest,
  START_CHECKPOINT,
  type AppendItem,
  type Checkpoint,
  type EventLog,
  type FlexDatabase,
} from '@flex/event-store';
import { createTestDatabase } from '@flex/testing';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { compareCheckpoints } from './log-window';
import { CHECKPOINT_PREFIX, StoreBackedEventBus } from './store-backed-event-bus';
import { BusRecord, IncarnationLog } from './test-support/bus-model';
import { RecordingLogger } from './test-support/recording-logger';
import { deferred, waitFor } from './test-support/wait-for';
import type { Delivery } from './types';

/**
 * The store-backed bus against a model of its guarantees, over a real store: several durables
 * starting at different positions, concurrent appends from two writers (group commit), appends the
 * store refuses (a stale version, a duplicate event id: the latter burns sequence values), batches,
 * long transactions holding the gap-safe tail back, handlers that ack, nak or hold (acks out of
 * order), and crash-restarts of the process. Every committed event reaches every durable and is
 * acked; no event of a refused append is ever delivered; first deliveries come in log order; a
 * restarted process redelivers nothing behind its saved checkpoint; no saved checkpoint passes an
 * un-acked event. With the store as sole writer (PGlite, embedded) the bus takes committed events
 * from the store's appends (EventLog.follow): each one's checkpoint must be the one a read gives.
 */
const RUNS = Number(process.env.FLEX_BUS_MODEL_RUNS ?? 20);
const DURABLES = ['executor', 'planner', 'validator'];

type Decision = 'ack' | 'nak' | 'hold';
type Step =
  | { kind: 'append'; writer: number; count: number }
  | { kind: 'refused'; writer: number; duplicateId: boolean }
  | { kind: 'batch'; writer: number }
  | { kind: 'long'; writer: number }
  | { kind: 'endLong' }
  | { kind: 'release'; durable: number; picks: number[] }
  | { kind: 'crash' }
  | { kind: 'pause'; ms: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      writer: fc.nat(1),
      count: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('refused' as const),
      writer: fc.nat(1),
      duplicateId: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('batch' as const), writer: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('long' as const), writer: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('endLong' as const) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      durable: fc.nat(DURABLES.length - 1),
      picks: fc.array(fc.nat(20), { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pause' as const), ms: fc.integer({ max: 40 }) }) },
);

const scenarioArb = fc.record({
  steps: fc.array(stepArb, { minLength: 3, maxLength: 25 }),
  decisions: fc.array(fc.constantFrom<Decision>('ack', 'nak', 'hold'), { minLength: 1, maxLength: 7 }),
  concurrency: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 3, maxLength: 3 }),
  batchSize: fc.integer({ min: 1, max: 6 }),
  windowSize: fc.integer({ min: 1, max: 12 }),
  /** Events committed before the bus starts, and how many of them each durable has behind it. */
  before: fc.integer({ min: 0, max: 6 }),
  behind: fc.array(fc.nat(6), { minLength: 3, maxLength: 3 }),
});
type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

interface Backend {
  /** Two connections where the backend has them (PGlite has one: its transactions queue). */
  writers: FlexDatabase[];
  /** One store, told as sole writer (the embedded runtime's setting): the bus follows its commits. */
  soleWriter: boolean;
  maxLong: number;
  /**
   * The safety-net poll. PGlite is only written through this bus's store, so its poll is off and a
   * lost wake-up shows as an event never delivered; on the shared Postgres server another spec's
   * transaction can hold the gap-safe tail back with no publish to follow, so the poll stays on.
   */
  pollIntervalMs: number;
  close(): Promise<void>;
}

const backends: Array<[string, () => Promise<Backend>]> = [
  [
    'pglite',
    async () => {
      const database = await createDatabase({});
      await migrateToLatest(database.db);
      return {
        writers: [database, database],
        soleWriter: false,
        maxLong: 1,
        pollIntervalMs: 3_600_000,
        close: () => database.close(),
      };
    },
  ],
  [
    'pglite, sole writer',
    async () => {
      const database = await createDatabase({});
      await migrateToLatest(database.db);
      // No other writer: no long transactions.
      const close = () => database.close();
      return { writers: [database], soleWriter: true, maxLong: 0, pollIntervalMs: 3_600_000, close };
    },
  ],
  [
    'postgres',
    async () => {
      const testDb = await createTestDatabase('bus_model');
      const writers = [await createDatabase({ url: testDb.url }), await createDatabase({ url: testDb.url })];
      await migrateToLatest(writers[0].db);
      const close = async () => {
        await Promise.all(writers.map((w) => w.close()));
        await testDb.drop();
      };
      return { writers, soleWriter: false, maxLong: 2, pollIntervalMs: 200, close };
    },
  ],
];

describe.each(backends)('StoreBackedEventBus model (%s)', (_name, open) => {
  let backend: Backend;
  let caseNo = 0;
  beforeAll(async () => void (backend = await open()));
  afterAll(() => backend?.close());

  it(`${RUNS} random cases keep every delivery guarantee`, async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, (scenario) => runCase(backend, scenario, ++caseNo)),
      { numRuns: RUNS },
    );
  }, 600_000);
});

interface Held {
  incarnation: number;
  durable: string;
  release: () => void;
}

interface Live {
  incarnation: number;
  log: IncarnationLog;
  bus: StoreBackedEventBus;
}

async function runCase(backend: Backend, s: Scenario, caseNo: number): Promise<void> {
  const prefix = `case-${randomUUID()}.`;
  const record = new BusRecord(prefix);
  const durables = DURABLES.map((d) => `${d}-${caseNo}`);
  const held: Held[] = [];
  const dead: Live[] = [];
  const committed: string[] = [];
  /** Committed events whose append has resolved: a refused append may reuse their ids. */
  const settled: string[] = [];
  const refused = new Set<string>();
  let live!: Live;
  const stores = backend.writers.map(
    (w) =>
      new EventStore(w.db, {
        soleWriter: backend.soleWriter,
        afterCommit: (events) => live.bus.publish(events),
      }),
  );
  const base = createEventLog(stores[0], backend.writers[0].db);
  const end = await tailEnd(base);
  const setup = { end, prefix, record, committed, settled };
  const behind = await startDurables(backend.writers[0], base, s, durables, setup);

  const handle = async (incarnation: number, durable: string, delivery: Delivery): Promise<void> => {
    const { event, deliveryCount } = delivery;
    record.delivered(incarnation, durable, event, deliveryCount);
    if (!record.mine(event)) return;
    const at = (event.position + deliveryCount * 3 + durables.indexOf(durable)) % s.decisions.length;
    const decision = deliveryCount > 3 ? 'ack' : s.decisions[at];
    if (decision === 'nak') return delivery.nak(deliveryCount % 2 === 0 ? 0 : 5);
    if (decision === 'hold') {
      const gate = deferred();
      held.push({ incarnation, durable, release: gate.resolve });
      await gate.promise;
    }
    record.acked(incarnation, durable, event);
    await delivery.ack();
  };

  const start = async (incarnation: number): Promise<Live> => {
    const log = new IncarnationLog(base, record, incarnation, (name) => name.slice(CHECKPOINT_PREFIX.length));
    const bus = new StoreBackedEventBus(log, {
      logger: new RecordingLogger(),
      batchSize: s.batchSize,
      windowSize: s.windowSize,
      pollIntervalMs: backend.pollIntervalMs,
    });
    for (const [i, durable] of durables.entries()) {
      const options = { durable, concurrency: s.concurrency[i], ackWaitMs: 120_000, maxDeliver: 1000 };
      await bus.consume(options, (delivery) => handle(incarnation, durable, delivery));
    }
    return { incarnation, log, bus };
  };

  const release = (who: (h: Held) => boolean, picks?: number[]) => {
    const mine = held.filter(who);
    const chosen = picks ? picks.map((p) => mine[p % mine.length]).filter(Boolean) : mine;
    for (const h of new Set(chosen)) {
      held.splice(held.indexOf(h), 1);
      h.release();
    }
  };

  const appends: Array<Promise<unknown>> = [];
  const longs: Array<{ commit: () => Promise<void> }> = [];
  const items = (counts: number[]) =>
    counts.map((count) => ({
      streamId: `${prefix}${randomUUID()}`,
      events: Array.from({ length: count }, () => newEvent()),
      options: { expectedVersion: 'no_stream' as const },
    }));
  const appended = (batch: AppendItem[], append: Promise<unknown>) => {
    const ids = batch.flatMap((item) => item.events.map((e) => e.id));
    committed.push(...ids);
    appends.push(append.then(() => settled.push(...ids)));
  };
  live = await start(0);
  try {
    for (const step of s.steps) {
      const store = stores[('writer' in step ? step.writer : 0) % stores.length];
      switch (step.kind) {
        case 'append': {
          const [item] = items([step.count]);
          appended([item], store.append(item.streamId, item.events, item.options));
          break;
        }
        case 'batch': {
          const batch = items([1, 2]);
          appended(batch, store.appendBatch(batch));
          break;
        }
        case 'refused':
          appends.push(refuse(store, step.duplicateId ? settled.at(-1) : undefined, prefix, refused));
          break;
        case 'long':
          if (longs.length < backend.maxLong) {
            longs.push(await openLong(backend.writers[step.writer], `${prefix}long`, committed));
          }
          break;
        case 'endLong':
          await longs.shift()?.commit();
          await live.bus.publish([]); // what the store's afterCommit does for a real append (not told)
          break;
        case 'release':
          release(
            (h) => h.incarnation === live.incarnation && h.durable === durables[step.durable],
            step.picks,
          );
          break;
        case 'crash':
          live.log.dead = true;
          dead.push(live);
          live = await start(live.incarnation + 1);
          break;
        case 'pause':
          await sleep(step.ms);
          break;
      }
    }
    for (const long of longs.splice(0)) await long.commit();
    await live.bus.publish([]);
    await Promise.all(appends);
    await waitFor(
      'every durable saved past every committed event',
      async () => {
        release((h) => h.incarnation === live.incarnation);
        if (record.checkpointOf.size < committed.length) return false;
        const last = [...record.checkpointOf.values()].reduce(
          (a, b) => (compareCheckpoints(a, b) > 0 ? a : b),
          end,
        );
        for (const d of durables) {
          const saved = await base.loadCheckpoint(CHECKPOINT_PREFIX + d);
          if (compareCheckpoints(saved, last) < 0) return false;
        }
        return true;
      },
      10_000,
    );
  } finally {
    for (const long of longs) await long.commit();
    release(() => true);
    await Promise.all([live, ...dead].map((l) => l.bus.close()));
  }
  check(record, durables, committed, behind);
  const delivered = record.deliveries.map((d) => d.event.id);
  expect(delivered.filter((id) => refused.has(id))).toEqual([]); // none uncommitted, ever
  const known = new Set(committed);
  expect(delivered.filter((id) => !known.has(id))).toEqual([]);
}

function check(
  record: BusRecord,
  durables: string[],
  committed: string[],
  behind: ReadonlyMap<string, ReadonlySet<string>>,
): void {
  expect(record.violations).toEqual([]);
  for (const durable of durables) {
    const acked = new Set(
      [...record.acks].filter((a) => a.includes(`/${durable}/`)).map((a) => a.split('/')[2]),
    );
    const skipped = behind.get(durable) ?? new Set();
    expect(committed.filter((id) => !acked.has(id) && !skipped.has(id))).toEqual([]);
    const incarnations = new Set(record.deliveries.map((d) => d.incarnation));
    for (const incarnation of incarnations) {
      const firsts = record.deliveries
        .filter((d) => d.durable === durable && d.incarnation === incarnation && d.count === 1)
        .map((d) => record.checkpointOf.get(d.event.id)!);
      const sorted = [...firsts].sort(compareCheckpoints);
      expect(firsts).toEqual(sorted); // first deliveries in log order
      expect(new Set(firsts.map((c) => c.position)).size).toBe(firsts.length); // each once
    }
  }
}

interface CaseSetup {
  end: Checkpoint;
  prefix: string;
  record: BusRecord;
  committed: string[];
  settled: string[];
}

/**
 * Commits `s.before` events before the bus starts and saves each durable's checkpoint `s.behind[i]`
 * of them before the end, so the durables start at different positions. Returns, per durable, the
 * events it starts past (never delivered to it).
 */
async function startDurables(
  writer: FlexDatabase,
  log: EventLog,
  s: Scenario,
  durables: string[],
  setup: CaseSetup,
): Promise<Map<string, Set<string>>> {
  const store = new EventStore(writer.db);
  const ids: string[] = [];
  for (let i = 0; i < s.before; i++) {
    const event = newEvent();
    await store.append(`${setup.prefix}${randomUUID()}`, [event], { expectedVersion: 'no_stream' });
    ids.push(event.id);
  }
  setup.committed.push(...ids);
  setup.settled.push(...ids);
  const after = new Map<string, Checkpoint>();
  let from = setup.end;
  await waitFor('the events committed before the bus are read', async () => {
    const page = await log.readAll(from, 100);
    setup.record.read(page);
    page.events.forEach((event, i) => ids.includes(event.id) && after.set(event.id, page.checkpoints[i]));
    from = page.checkpoint;
    return after.size === ids.length;
  });
  const behind = new Map<string, Set<string>>();
  for (const [i, durable] of durables.entries()) {
    const past = ids.length - Math.min(s.behind[i], ids.length);
    const checkpoint = past === 0 ? setup.end : after.get(ids[past - 1])!;
    await log.saveCheckpoint(CHECKPOINT_PREFIX + durable, checkpoint);
    behind.set(durable, new Set(ids.slice(0, past)));
  }
  return behind;
}

/** An append the store must refuse: a stale expected version, or (given one) an event id already stored. */
async function refuse(
  store: EventStore,
  storedId: string | undefined,
  prefix: string,
  refused: Set<string>,
): Promise<void> {
  const fresh = newEvent();
  refused.add(fresh.id);
  const events = storedId === undefined ? [fresh] : [fresh, { ...newEvent(), id: storedId }];
  const expectedVersion = storedId === undefined ? 3 : ('no_stream' as const);
  const outcome = await store.append(`${prefix}${randomUUID()}`, events, { expectedVersion }).then(
    () => 'appended',
    (error: { code?: string }) => error.code,
  );
  expect(outcome).toBe(storedId === undefined ? 'WRONG_EXPECTED_VERSION' : 'DUPLICATE_EVENT_ID');
}

/** A transaction that inserts one event and stays open (holding the gap-safe tail back) until committed. */
async function openLong(
  writer: FlexDatabase,
  stream: string,
  committed: string[],
): Promise<{ commit: () => Promise<void> }> {
  const inserted = deferred();
  const finish = deferred();
  const event = newEvent();
  const done = writer.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('events')
      .values({
        id: event.id,
        stream_id: `${stream}-${event.id}`,
        version: 1,
        type: event.type,
        payload: JSON.stringify(event.payload),
        metadata: JSON.stringify(event.metadata),
      })
      .execute();
    inserted.resolve();
    await finish.promise;
  });
  await inserted.promise;
  committed.push(event.id);
  return {
    commit: async () => {
      finish.resolve();
      await done;
    },
  };
}

async function tailEnd(log: EventLog): Promise<Checkpoint> {
  let checkpoint = START_CHECKPOINT;
  for (let page = await log.readAll(checkpoint, 500); page.events.length > 0;) {
    checkpoint = page.checkpoint;
    page = await log.readAll(checkpoint, 500);
  }
  return checkpoint;
}

function newEvent() {
  return {
    id: randomUUID(),
    type: 'modelled',
    payload: { n: 1 },
    metadata: { correlationId: 'bus-model' },
  };
}
