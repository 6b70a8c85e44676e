import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'kysely';
import { EventStore } from './event-store';
import { backends, newEvent, postgresBackend, TestStore, uniqueStream } from './store.spec-helper';
import type { AppendResult, ExpectedVersion, NewEvent } from './types';

/** Scenarios per backend (FLEX_GROUP_COMMIT_RUNS for more). */
const RUNS = Number(process.env.FLEX_GROUP_COMMIT_RUNS ?? 40);

/** One append as generated: which stream and key (indexes into the scenario's), what it expects. */
interface Command {
  stream: number;
  expect: 'right' | 'stale' | 'any' | 'no_stream' | { version: number };
  key?: number;
  payloads: unknown[];
  /** Reuse the first event id of the command this many before (a replay without a key: refused). */
  reuseIdOf?: number;
  /** Wait a turn (or a millisecond) before submitting: later appends then queue behind a group in flight. */
  pause: 'none' | 'turn' | 'ms';
  /** One of its payloads has no canonical JSON form (a lone surrogate): refused before anything else. */
  invalid: boolean;
}

/** What appending the commands one by one, in order, gives each of them. */
type Expected =
  | { outcome: 'appended'; ids: string[]; versions: number[]; nextVersion: number }
  | { outcome: 'duplicate'; ids: string[]; nextVersion: number }
  | { outcome: 'WRONG_EXPECTED_VERSION'; actual: number }
  | { outcome: 'IDEMPOTENCY_KEY_CONFLICT' }
  | { outcome: 'DUPLICATE_EVENT_ID' }
  | { outcome: 'INVALID_APPEND' };

const storable = fc
  .jsonValue({ maxDepth: 2 })
  // jsonb refuses NUL in text: such a payload fails the append, which is not what this spec is about.
  .filter((value) => !JSON.stringify(value).includes('\\u0000'));

const expectation: fc.Arbitrary<Command['expect']> = fc.oneof(
  { arbitrary: fc.constant('right' as const), weight: 4 },
  { arbitrary: fc.constant('any' as const), weight: 2 },
  { arbitrary: fc.constant('stale' as const), weight: 1 },
  { arbitrary: fc.constant('no_stream' as const), weight: 1 },
  { arbitrary: fc.record({ version: fc.nat(4) }), weight: 1 },
);

const command: fc.Arbitrary<Command> = fc.record({
  stream: fc.nat(2),
  expect: expectation,
  key: fc.option(fc.nat(3), { freq: 2 }).map((key) => key ?? undefined),
  payloads: fc.array(storable, { maxLength: 3 }),
  /** How far back the command whose event id is reused is (rarely). */
  reuseIdOf: fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: fc.nat(5), weight: 1 }),
  pause: fc.constantFrom('none' as const, 'none' as const, 'none' as const, 'turn' as const, 'ms' as const),
  invalid: fc.oneof(
    { arbitrary: fc.constant(false), weight: 12 },
    { arbitrary: fc.constant(true), weight: 1 },
  ),
});

/** The commands made concrete (streams, keys, event ids, expected versions) and what each must get. */
interface Scenario {
  appends: Array<{ streamId: string; events: NewEvent[]; expectedVersion: ExpectedVersion; key?: string }>;
  expected: Expected[];
  streams: Map<string, string[]>;
}

/** The model: appending one by one, as the store did before group commit. */
function plan(commands: Command[]): Scenario {
  const streamIds = [uniqueStream(), uniqueStream(), uniqueStream()];
  const keyIds = Array.from({ length: 4 }, () => `key-${randomUUID()}`);
  const streams = new Map(streamIds.map((id) => [id, [] as string[]]));
  const keys = new Map<string, { streamId: string; ids: string[] }>();
  const stored = new Set<string>();
  const scenario: Scenario = { appends: [], expected: [], streams };
  commands.forEach((c, i) => {
    const streamId = streamIds[c.stream];
    const history = streams.get(streamId) ?? [];
    const key = c.key === undefined ? undefined : keyIds[c.key];
    const payloads = c.invalid ? [...c.payloads, { text: 'lone \ud800 surrogate' }] : c.payloads;
    const events = payloads.map((payload, n) => {
      const reused = n === 0 && c.reuseIdOf !== undefined && c.reuseIdOf < i;
      const id = reused
        ? (scenario.appends[c.reuseIdOf as number].events[0]?.id ?? randomUUID())
        : randomUUID();
      const timestamp = n === 1 ? '2026-03-04T05:06:07.089Z' : undefined;
      return { ...newEvent(`t${n}`, payload, timestamp), id };
    });
    const expectedVersion = concrete(c.expect, history.length);
    scenario.appends.push({ streamId, events, expectedVersion, key });
    scenario.expected.push(decide());

    function decide(): Expected {
      if (c.invalid) return { outcome: 'INVALID_APPEND' };
      const used = key === undefined ? undefined : keys.get(key);
      if (used && used.streamId !== streamId) return { outcome: 'IDEMPOTENCY_KEY_CONFLICT' };
      if (used) return { outcome: 'duplicate', ids: used.ids, nextVersion: history.length };
      const wanted = expectedVersion === 'no_stream' ? 0 : expectedVersion;
      if (wanted !== 'any' && wanted !== history.length)
        return { outcome: 'WRONG_EXPECTED_VERSION', actual: history.length };
      const ids = events.map((e) => e.id);
      if (ids.some((id) => stored.has(id))) return { outcome: 'DUPLICATE_EVENT_ID' };
      const versions = ids.map((_, n) => history.length + n + 1);
      history.push(...ids);
      ids.forEach((id) => stored.add(id));
      if (key !== undefined) keys.set(key, { streamId, ids });
      return { outcome: 'appended', ids, versions, nextVersion: history.length };
    }
  });
  return scenario;
}

function concrete(expect: Command['expect'], version: number): ExpectedVersion {
  if (expect === 'right') return version;
  if (expect === 'stale') return version === 0 ? 1 : version - 1;
  return typeof expect === 'string' ? expect : expect.version;
}

/** What the store gave, in the model's terms. */
function observed(
  settled: PromiseSettledResult<AppendResult>,
): Expected | { outcome: 'other'; error: unknown } {
  if (settled.status === 'rejected') {
    const { code, actual } = settled.reason as { code?: string; actual?: number };
    if (code === 'WRONG_EXPECTED_VERSION') return { outcome: code, actual: actual as number };
    if (code === 'IDEMPOTENCY_KEY_CONFLICT' || code === 'DUPLICATE_EVENT_ID' || code === 'INVALID_APPEND')
      return { outcome: code };
    return { outcome: 'other', error: settled.reason };
  }
  const { duplicate, events, nextVersion } = settled.value;
  const ids = events.map((e) => e.id);
  if (duplicate) return { outcome: 'duplicate', ids, nextVersion };
  return { outcome: 'appended', ids, versions: events.map((e) => e.version), nextVersion };
}

async function submit(store: EventStore, scenario: Scenario, commands: Command[]) {
  const pending: Array<Promise<AppendResult>> = [];
  for (const [i, append] of scenario.appends.entries()) {
    if (commands[i].pause === 'turn') await nextTurn();
    if (commands[i].pause === 'ms') await new Promise((resolve) => setTimeout(resolve, 1));
    pending.push(
      store.append(append.streamId, append.events, {
        expectedVersion: append.expectedVersion,
        idempotencyKey: append.key,
      }),
    );
  }
  return Promise.allSettled(pending);
}

describe.each(backends)('group commit on $kind', (backend) => {
  let t: TestStore;

  beforeAll(async () => {
    t = await backend.open('group_commit');
  });
  afterAll(() => t.close());

  it('gives concurrent appends exactly the outcomes of appending them one by one, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { minLength: 1, maxLength: 30, size: 'medium' }),
        // Small groups, or the default (100): then 16 or more waiting are taken in halves.
        fc.oneof(fc.integer({ min: 1, max: 8 }), fc.constant(100)),
        fc.integer({ min: 1, max: 4 }),
        async (commands, maxGroup, maxInFlight) => {
          const store = new EventStore(t.database.db, { maxGroup, maxInFlight });
          const scenario = plan(commands);
          const settled = await submit(store, scenario, commands);
          expect(settled.map(observed)).toEqual(scenario.expected);
          for (const [streamId, ids] of scenario.streams) {
            const read = await store.readStream(streamId);
            expect(read.map((e) => e.id)).toEqual(ids);
            expect(read.map((e) => e.version)).toEqual(ids.map((_, i) => i + 1));
            const positions = read.map((e) => e.position);
            expect(positions).toEqual([...positions].sort((a, b) => a - b));
            // What an append returns is what a reader reads (built from what was sent, not read back).
            const returned = settled.flatMap((s) => (s.status === 'fulfilled' ? s.value.events : []));
            for (const event of read) expect(returned.filter((e) => e.id === event.id)).toContainEqual(event);
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  it('commits appends submitted together in one transaction, a refused or failing one not undoing the others', async () => {
    const store = new EventStore(t.database.db, { maxInFlight: 1 });
    const [a, b, c] = [uniqueStream(), uniqueStream(), uniqueStream()];
    const taken = newEvent();
    await store.append(uniqueStream(), [taken], { expectedVersion: 'any' });
    const outcomes = await Promise.allSettled([
      store.append(a, [newEvent()], { expectedVersion: 'no_stream' }),
      store.append(b, [newEvent()], { expectedVersion: 3 }),
      store.append(c, [taken], { expectedVersion: 'any' }),
      store.append(a, [newEvent(), newEvent()], { expectedVersion: 1 }),
      store.append(c, [newEvent()], { expectedVersion: 'no_stream' }),
    ]);
    expect(
      outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as { code: string }).code)),
    ).toEqual(['ok', 'WRONG_EXPECTED_VERSION', 'DUPLICATE_EVENT_ID', 'ok', 'ok']);
    const xids = await sql<{ xid: string }>`
      select distinct transaction_id::text as xid from events where stream_id in (${a}, ${c})`.execute(
      t.database.db,
    );
    // The duplicate id failed the group's transaction: it was retried append by append.
    expect(xids.rows.length).toBe(3);

    const together = await Promise.all(
      [a, b, c].map((stream) => store.append(stream, [newEvent()], { expectedVersion: 'any' })),
    );
    const shared = await sql<{ xid: string }>`
      select distinct transaction_id::text as xid from events
      where position in (${sql.join(together.map((r) => r.events[0].position))})`.execute(t.database.db);
    expect(shared.rows).toHaveLength(1);
  });
});

describe('group commit racing another process on postgres', () => {
  let t: TestStore;
  let stores: EventStore[];

  beforeAll(async () => {
    t = await postgresBackend.open('group_commit_race');
    const second = await t.connect!();
    stores = [
      new EventStore(t.database.db, { maxAttempts: 50 }),
      new EventStore(second.db, { maxAttempts: 50 }),
    ];
  });
  afterAll(() => t.close());

  const both = <T>(n: number, fn: (store: EventStore, i: number) => Promise<T>) =>
    Promise.allSettled(Array.from({ length: n }, (_, i) => fn(stores[i % 2], i)));

  it('treats the same key appended from two processes at once as one append', async () => {
    const stream = uniqueStream();
    const key = `race:${stream}`;
    const outcomes = await both(12, (store) =>
      store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'any', idempotencyKey: key }),
    );
    const results = outcomes.map((o) =>
      o.status === 'fulfilled' ? o.value : expect(o.reason).toBeUndefined(),
    );
    const originals = results.filter((r) => r && !r.duplicate);
    expect(originals).toHaveLength(1);
    for (const result of results) expect(result?.events).toEqual(originals[0]?.events);
    expect((await stores[0].readStream(stream)).map((e) => e.id)).toEqual(
      originals[0]?.events.map((e) => e.id),
    );
  });

  it('lets one of the writers expecting the same version win, across processes', async () => {
    const stream = uniqueStream();
    await stores[0].append(stream, [newEvent()], { expectedVersion: 'no_stream' });
    const outcomes = await both(10, (store) => store.append(stream, [newEvent()], { expectedVersion: 1 }));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
      expect(o.reason).toMatchObject({ code: 'WRONG_EXPECTED_VERSION', actual: 2 });
    }
  });

  it("appends every 'any' writer of both processes, versions contiguous", async () => {
    const stream = uniqueStream();
    const outcomes = await both(20, (store) =>
      store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'any' }),
    );
    expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
    const versions = (await stores[0].readStream(stream)).map((e) => e.version);
    expect(versions).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });
});
