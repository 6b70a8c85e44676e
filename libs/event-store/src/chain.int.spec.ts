import { createTestDatabase } from '@flex/testing';
import fc from 'fast-check';
import { Migrator, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { chainHead, GENESIS_HASH } from './chain';
import { verifyChain } from './chain-verify';
import { createDatabase, type FlexDatabase } from './database';
import { EventStore } from './event-store';
import { migrateToLatest } from './migrate';
import { eventStoreMigrations } from './migrations';
import { backends, capturingLogger, newEvent, type TestStore, uniqueStream } from './store.spec-helper';

describe.each(backends)('the event chain on $kind', (backend) => {
  let t: TestStore;
  let store: EventStore;

  beforeAll(async () => {
    t = await backend.open('event_chain');
    store = new EventStore(t.database.db, { logger: capturingLogger() });
  });
  afterAll(() => t.close());

  it('links every appended event to its predecessor, across appends, batches and groups', async () => {
    const [a, b] = [uniqueStream(), uniqueStream()];
    await store.append(a, [newEvent('one'), newEvent('two')], { expectedVersion: 'no_stream' });
    // Submitted in one turn: one group commit, with two appends to b taking turns inside it.
    await Promise.all([
      store.append(a, [newEvent('three')], { expectedVersion: 2 }),
      store.append(b, [newEvent('one')], { expectedVersion: 'any' }),
      store.append(b, [newEvent('two'), newEvent('three')], { expectedVersion: 'any' }),
    ]);
    await store.appendBatch([
      { streamId: a, events: [newEvent('four')], options: { expectedVersion: 3 } },
      { streamId: a, events: [newEvent('five')], options: { expectedVersion: 4 } },
    ]);

    const chainA = await store.readChain(a);
    expect(chainA.map((e) => e.version)).toEqual([1, 2, 3, 4, 5]);
    expect(chainA[0].prev).toBe(GENESIS_HASH);
    expect(chainA.slice(1).map((e) => e.prev)).toEqual(chainA.slice(0, -1).map((e) => e.hash));
    expect(verifyChain(chainA, chainHead(a, chainA))).toMatchObject({ ok: true, events: 5 });
    expect(verifyChain(await store.readChain(b))).toMatchObject({ ok: true, events: 3 });
  });

  it('chains what readers see: the time to the millisecond, the payload as stored (not upcast)', async () => {
    const stream = uniqueStream();
    const given = '2026-03-04T05:06:07.123456Z';
    const [stored] = (
      await store.append(stream, [newEvent('timed', { n: 1 }, given)], { expectedVersion: 0 })
    ).events;
    expect(stored.timestamp).toBe('2026-03-04T05:06:07.123Z');
    const [chained] = await store.readChain(stream);
    expect(chained.timestamp).toBe(stored.timestamp);
    expect(verifyChain([chained]).ok).toBe(true);
  });

  it('holds for any JSON payload and metadata, as the database gives them back', async () => {
    const stream = uniqueStream();
    // \u0000 is the one JSON string jsonb cannot store: the append refuses it (not a chain matter).
    const text = fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));
    const value = fc
      .jsonValue({ maxDepth: 3, stringUnit: 'grapheme' })
      .filter((v) => !JSON.stringify(v).includes('\\u0000'));
    let version = 0;
    await fc.assert(
      fc.asyncProperty(value, text, async (payload, actor) => {
        const event = { ...newEvent('any', payload), metadata: { correlationId: 'c', actor } };
        await store.append(stream, [event], { expectedVersion: version++ });
        const chain = await store.readChain(stream);
        expect(verifyChain(chain).firstBad).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('hashes an event id given in capitals as the database gives it back', async () => {
    const stream = uniqueStream();
    const event = { ...newEvent('shouted'), id: randomUUID().toUpperCase() };
    await store.append(stream, [event], { expectedVersion: 'no_stream' });
    const chain = await store.readChain(stream);
    expect(chain[0].id).toBe(event.id.toLowerCase());
    expect(verifyChain(chain).ok).toBe(true);
  });

  it('refuses, naming the event, a payload that has no canonical JSON form', async () => {
    const event = newEvent('bad', { text: 'lone \ud800 surrogate' });
    await expect(store.append(uniqueStream(), [event], { expectedVersion: 'any' })).rejects.toMatchObject({
      code: 'INVALID_APPEND',
      message: expect.stringContaining(`event ${event.id}: cannot canonicalize "payload.text"`),
    });
  });
});

const BEFORE_CHAIN = Object.fromEntries(
  Object.entries(eventStoreMigrations).filter(([name]) => name < '2026121701_event_chain'),
);

/** A database with events written before the chain existed (by the old append columns). */
async function migrateWithOldEvents(database: FlexDatabase, streams: string[]): Promise<void> {
  const migrator = new Migrator({ db: database.db, provider: { getMigrations: async () => BEFORE_CHAIN } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
  for (const [s, stream] of streams.entries())
    for (const version of [1, 2, 3]) {
      const payload = JSON.stringify({ s, version, nested: { é: [1.5, 'x', null] } });
      await sql`insert into events (id, stream_id, version, type, payload, metadata, recorded_at)
        values (${randomUUID()}, ${stream}, ${version}, 'old', ${payload}::jsonb, '{"correlationId":"c"}',
          '2025-01-02T03:04:05.678912Z')`.execute(database.db);
    }
  await migrateToLatest(database.db);
}

describe('the chain migration', () => {
  it.each(['postgres', 'pglite'] as const)(
    'chains the events stored before it on %s, and new ones continue each chain',
    async (kind) => {
      const testDb = kind === 'postgres' ? await createTestDatabase('chain_migration') : undefined;
      const database = await createDatabase({ url: testDb?.url });
      try {
        const streams = [uniqueStream(), uniqueStream()];
        await migrateWithOldEvents(database, streams);
        const store = new EventStore(database.db, { logger: capturingLogger() });
        await store.append(streams[0], [newEvent('new')], { expectedVersion: 3 });
        const chains = await Promise.all(streams.map((s) => store.readChain(s)));
        expect(chains.map((c) => c.length)).toEqual([4, 3]);
        expect(chains[1][0].timestamp).toBe('2025-01-02T03:04:05.678Z');
        for (const chain of chains) expect(verifyChain(chain)).toMatchObject({ ok: true });
        await expect(sql`delete from events`.execute(database.db)).rejects.toThrow(/append-only/);
      } finally {
        await database.close();
        await testDb?.drop();
      }
    },
  );
});
