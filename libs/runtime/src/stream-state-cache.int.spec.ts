import { decision, type StateFold } from '@flex/decider';
import {
  createDatabase,
  EventStore,
  migrateToLatest,
  type FlexDatabase,
  type StoredEvent,
} from '@flex/event-store';
import { createTestDatabase, type TestDatabase } from '@flex/testing';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { runCommand, type CommandResult } from './command';
import { StreamStateCache } from './stream-state-cache';

// Model-based: instances with their own caches (and one without) run commands on a few streams of one
// real store, in any interleaving, together or not, with reused idempotency keys. Whatever the caches
// hold, every event must have been decided on the exact state before it.

interface Tally {
  n: number;
  sum: number;
  seen: string[];
}
interface Decided {
  decidedOn: number;
  sum: number;
  i: number;
}

const tally: StateFold<Tally> = {
  initialState: () => ({ n: 0, sum: 0, seen: [] }),
  evolve: (s, e) => {
    const p = e.payload as Decided;
    return { n: s.n + 1, sum: s.sum + p.decidedOn + p.i, seen: [...s.seen, `${e.version}:${p.decidedOn}`] };
  },
};

interface Cmd {
  instance: number;
  stream: number;
  key: number | null;
  events: number;
  withNext: boolean;
}

const cmdArb: fc.Arbitrary<Cmd> = fc.record({
  instance: fc.integer({ min: 0, max: 2 }), // 2: no cache at all
  stream: fc.integer({ min: 0, max: 2 }),
  key: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  events: fc.integer({ min: 0, max: 2 }),
  withNext: fc.boolean(),
});

const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
const ids = { uuid: () => randomUUID() };

type Backend = {
  kind: string;
  /** The store is the database's sole writer (embedded PGlite): tails come from what it appended. */
  soleWriter?: boolean;
  open(): Promise<{ database: FlexDatabase; close(): Promise<void> }>;
};
const openPglite = async () => {
  const database = await createDatabase({});
  return { database, close: () => database.close() };
};
const backends: Backend[] = [
  { kind: 'pglite', open: openPglite },
  { kind: 'pglite, sole writer', soleWriter: true, open: openPglite },
  {
    kind: 'postgres',
    open: async () => {
      const testDb: TestDatabase = await createTestDatabase('stream-state-cache');
      const database = await createDatabase({ url: testDb.url, poolSize: 10 });
      return { database, close: () => database.close().then(() => testDb.drop()) };
    },
  },
];

describe.each(backends)('runCommand with stream state caches ($kind)', (backend) => {
  let opened: Awaited<ReturnType<Backend['open']>>;
  let store: EventStore;

  beforeAll(async () => {
    opened = await backend.open();
    await migrateToLatest(opened.database.db);
    store = new EventStore(opened.database.db, { soleWriter: backend.soleWriter });
  });
  afterAll(() => opened.close());

  async function foldOf(streamId: string, version: number): Promise<Tally> {
    const events = await store.readStream(streamId, { beforeVersion: version + 1 });
    return events.reduce(tally.evolve, tally.initialState());
  }

  // The store as runCommand uses it, counting the appends refused for a stale expected version.
  let refused = 0;
  const counting = () =>
    ({
      readTail: (streamId: string, after: number) => store.readTail(streamId, after),
      append: (...args: Parameters<EventStore['append']>) =>
        store.append(...args).catch((error: unknown) => {
          if ((error as { code?: string }).code === 'WRONG_EXPECTED_VERSION') refused++;
          throw error;
        }),
    }) as unknown as EventStore;

  /** The streams of `group` whose entry in `cache` is behind the store. */
  async function staleEntries(cache: StreamStateCache, group: Cmd[], streams: string[]): Promise<number> {
    let stale = 0;
    for (const streamId of new Set(group.map((cmd) => streams[cmd.stream]))) {
      const entry = cache.get(tally, streamId);
      if (entry && entry.version !== (await store.readStream(streamId)).length) stale++;
    }
    return stale;
  }

  function command(cmd: Cmd, streamId: string, key: string | undefined, caches: StreamStateCache[]) {
    return runCommand<Tally, never>({
      store: counting(),
      streamId,
      fold: { ...tally }, // a fresh fold object per call, as the services build them
      decide: (s) =>
        decision(
          Array.from({ length: cmd.events }, (_, i) => ({
            type: 'log' as const,
            payload: { decidedOn: s.n, sum: s.sum, i } as never,
          })),
        ),
      metadata: () => ({ correlationId: streamId }),
      idempotencyKey: key,
      clock,
      ids,
      cache: caches[cmd.instance],
    });
  }

  async function checkResult(
    streamId: string,
    result: CommandResult<Tally, never>,
    alone: boolean,
  ): Promise<void> {
    const last = result.appended[result.appended.length - 1];
    if (last) expect(result.state.n).toBe(last.version);
    expect(result.state).toEqual(await foldOf(streamId, result.state.n));
    // Nothing appended (nothing to decide, or a duplicate) proves nothing about a cached state: the
    // decision is taken on the stream as read during the call, which no one else moved meanwhile.
    if (alone && result.appended.length === 0)
      expect(result.state.n).toBe((await store.readStream(streamId)).length);
  }

  async function checkStore(streams: string[], caches: StreamStateCache[]): Promise<void> {
    for (const streamId of streams) {
      const events: StoredEvent[] = await store.readStream(streamId);
      for (const e of events) {
        const p = e.payload as Decided;
        // Decided on the state of version decidedOn, appended right after it.
        expect(p.decidedOn + p.i + 1).toBe(e.version);
        expect(p.sum).toBe((await foldOf(streamId, p.decidedOn)).sum);
      }
      for (const cache of caches) {
        const cached = cache.get(tally, streamId);
        if (!cached) continue;
        expect(cached.version).toBeLessThanOrEqual(events.length);
        expect(cached.state).toEqual(await foldOf(streamId, cached.version));
        expect(Object.isFrozen(cached.state) && Object.isFrozen(cached.state.seen)).toBe(true);
      }
    }
  }

  it('decides every append on the exact state before it, whatever the caches hold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmdArb, { minLength: 1, maxLength: 14 }), async (cmds) => {
        const run = randomUUID();
        const streams = [0, 1, 2].map((i) => `spec-${run}-${i}`);
        const caches = [new StreamStateCache({ maxEntries: 2 }), new StreamStateCache({ maxEntries: 2 })];
        for (let i = 0; i < cmds.length;) {
          const group = [cmds[i++]];
          while (group[group.length - 1].withNext && i < cmds.length) group.push(cmds[i++]);
          const alone = group.every((cmd) => cmd.instance === group[0].instance && cmd.instance < 2);
          const stale = alone ? await staleEntries(caches[group[0].instance], group, streams) : 0;
          refused = 0;
          const results = await Promise.all(
            group.map(async (cmd) => {
              const streamId = streams[cmd.stream];
              const key = cmd.key === null ? undefined : `${streamId}:key-${cmd.key}`;
              return { streamId, result: await command(cmd, streamId, key, caches) };
            }),
          );
          for (const { streamId, result } of results) await checkResult(streamId, result, group.length === 1);
          // Commands of one process (one cache) on a stream take turns: none loses its append to another.
          // Only an entry left stale by another process costs a refusal, once.
          if (alone) expect(refused).toBeLessThanOrEqual(stale);
          await checkStore(streams, caches);
        }
      }),
      { numRuns: backend.kind === 'postgres' ? 80 : 60 },
    );
  });

  it('hands the decider a frozen state: changing it throws', async () => {
    const streamId = `spec-${randomUUID()}`;
    const cache = new StreamStateCache({ maxEntries: 4 });
    const cmd: Cmd = { instance: 0, stream: 0, key: null, events: 1, withNext: false };
    await command(cmd, streamId, undefined, [cache]);
    await expect(
      runCommand<Tally, never>({
        store,
        streamId,
        fold: tally,
        decide: (s) => {
          s.seen.push('mutated');
          return decision();
        },
        metadata: () => ({ correlationId: streamId }),
        clock,
        ids,
        cache,
      }),
    ).rejects.toThrow(TypeError);
    expect(cache.get(tally, streamId)?.state.seen).toEqual(['1:0']);
  });
});

describe('StreamStateCache', () => {
  it('runs the works given for one stream one after another, a failed one not stopping the next', async () => {
    const cache = new StreamStateCache({ maxEntries: 2 });
    const log: string[] = [];
    const work =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name} starts`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`${name} ends`);
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      cache.serially('a', work('a1', true)),
      cache.serially('a', work('a2')),
      cache.serially('b', work('b1')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log.indexOf('a2 starts')).toBeGreaterThan(log.indexOf('a1 ends'));
    expect(log.indexOf('b1 starts')).toBeLessThan(log.indexOf('a1 ends'));
  });

  it('keeps the most recently used entries, never moves one back, and keeps none at 0', () => {
    const cache = new StreamStateCache({ maxEntries: 2 });
    cache.set(tally, 'a', 1, { n: 1, sum: 0, seen: [] });
    cache.set(tally, 'b', 1, { n: 1, sum: 0, seen: [] });
    cache.get(tally, 'a');
    cache.set(tally, 'c', 1, { n: 1, sum: 0, seen: [] });
    expect([cache.get(tally, 'a')?.version, cache.get(tally, 'b'), cache.size]).toEqual([1, undefined, 2]);
    cache.set(tally, 'a', 3, { n: 3, sum: 0, seen: [] });
    cache.set(tally, 'a', 2, { n: 2, sum: 0, seen: [] });
    expect(cache.get(tally, 'a')?.version).toBe(3);
    const other: StateFold<Tally> = { ...tally, evolve: (s) => s };
    expect(cache.get(other, 'a')).toBeUndefined();
    const none = new StreamStateCache({ maxEntries: 0 });
    expect(Object.isFrozen(none.set(tally, 'a', 1, { n: 1, sum: 0, seen: [] }))).toBe(true);
    expect(none.size).toBe(0);
  });
});
