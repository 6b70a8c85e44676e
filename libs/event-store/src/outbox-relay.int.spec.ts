import { EventStore } from './event-store';
import { countOutbox } from './outbox';
import { OutboxRelay } from './outbox-relay';
import { backends, capturingLogger, newEvent, TestStore, uniqueStream, waitFor } from './store.spec-helper';
import type { StoredEvent } from './types';

describe.each(backends)('OutboxRelay on $kind', (backend) => {
  let t: TestStore;
  /** Appends with an outbox, and an afterCommit that fails: the crash between commit and publish. */
  let unpublished: EventStore;

  beforeAll(async () => {
    t = await backend.open('outbox_relay');
    unpublished = new EventStore(t.database.db, {
      outbox: true,
      logger: capturingLogger(),
      afterCommit: () => Promise.reject(new Error('bus down')),
    });
  });
  afterAll(() => t.close());

  async function appendUnpublished(n: number): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    for (let i = 0; i < n; i++)
      events.push(
        ...(
          await unpublished.append(uniqueStream(), [newEvent('e', { i })], { expectedVersion: 'no_stream' })
        ).events,
      );
    return events;
  }

  it('publishes what afterCommit missed, exactly once and in position order', async () => {
    const missed = await appendUnpublished(7);
    expect(await countOutbox(t.database.db)).toBe(7);
    const published: StoredEvent[][] = [];
    const relay = new OutboxRelay(t.database.db, unpublished, async (events) => void published.push(events), {
      minAgeMs: 0,
      batchSize: 3,
    });

    while ((await relay.runOnce()) > 0);
    expect(published.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(published.flat()).toEqual(missed);
    expect(await countOutbox(t.database.db)).toBe(0);
    expect(await relay.runOnce()).toBe(0);
  });

  it('leaves nothing for the relay when afterCommit published', async () => {
    const published: StoredEvent[] = [];
    const store = new EventStore(t.database.db, {
      outbox: true,
      afterCommit: (events) => void published.push(...events),
    });
    const { events } = await store.append(uniqueStream(), [newEvent(), newEvent()], {
      expectedVersion: 'no_stream',
    });
    expect(published).toEqual(events);
    // The rows go with the next sweep (one DELETE per beat for every append published meanwhile).
    await waitFor(async () => (await countOutbox(t.database.db)) === 0);
  });

  it('removes the rows of what was published together, and at once on flushPublished', async () => {
    const store = new EventStore(t.database.db, {
      outbox: true,
      afterCommit: () => undefined,
      outboxSweepMs: 3_600_000,
    });
    const before = await countOutbox(t.database.db);
    await Promise.all(
      Array.from({ length: 5 }, () =>
        store.append(uniqueStream(), [newEvent()], { expectedVersion: 'no_stream' }),
      ),
    );
    expect(await countOutbox(t.database.db)).toBe(before + 5);
    await store.flushPublished();
    expect(await countOutbox(t.database.db)).toBe(before);
    expect(() => new EventStore(t.database.db, { outbox: true, outboxSweepMs: -1 })).toThrow(/outboxSweepMs/);
  });

  it('with types, relays only those and leaves the rest to the relays that may publish them', async () => {
    const mine = (
      await unpublished.append(uniqueStream(), [newEvent('start', {}), newEvent('node_start', {})], {
        expectedVersion: 'no_stream',
      })
    ).events;
    const published: StoredEvent[] = [];
    const gateway = new OutboxRelay(
      t.database.db,
      unpublished,
      async (events) => void published.push(...events),
      {
        minAgeMs: 0,
        types: ['start'],
      },
    );
    while ((await gateway.runOnce()) > 0);
    expect(published).toEqual([mine[0]]);
    expect(await countOutbox(t.database.db)).toBe(1);
    const executor = new OutboxRelay(
      t.database.db,
      unpublished,
      async (events) => void published.push(...events),
      {
        minAgeMs: 0,
        types: ['node_start'],
      },
    );
    while ((await executor.runOnce()) > 0);
    expect(published).toEqual(mine);
    expect(await countOutbox(t.database.db)).toBe(0);
    expect(() => new OutboxRelay(t.database.db, unpublished, async () => undefined, { types: [] })).toThrow(
      /at least one type/,
    );
  });

  it('leaves young rows to their appender', async () => {
    await appendUnpublished(1);
    const relay = new OutboxRelay(t.database.db, unpublished, async () => undefined, { minAgeMs: 3_600_000 });
    expect(await relay.runOnce()).toBe(0);
    expect(await countOutbox(t.database.db)).toBe(1);
    await new OutboxRelay(t.database.db, unpublished, async () => undefined, { minAgeMs: 0 }).runOnce();
  });

  it('keeps a batch whose publish failed and publishes it on the next run', async () => {
    const missed = await appendUnpublished(2);
    let fail = true;
    const published: StoredEvent[] = [];
    const relay = new OutboxRelay(
      t.database.db,
      unpublished,
      async (events) => {
        if (fail) throw new Error('still down');
        published.push(...events);
      },
      { minAgeMs: 0 },
    );

    await expect(relay.runOnce()).rejects.toThrow('still down');
    expect(await countOutbox(t.database.db)).toBe(2);
    fail = false;
    expect(await relay.runOnce()).toBe(2);
    expect(published).toEqual(missed);
  });

  it('shares the work between instances without publishing anything twice', async () => {
    const missed = await appendUnpublished(40);
    const other = backend.kind === 'postgres' ? (await t.connect!()).db : t.database.db;
    const published: number[] = [];
    const relays = [t.database.db, other].map(
      (db) =>
        new OutboxRelay(
          db,
          new EventStore(db),
          async (events) => void published.push(...events.map((e) => e.position)),
          { minAgeMs: 0, batchSize: 4 },
        ),
    );
    await Promise.all(
      relays.map(async (relay) => {
        while ((await relay.runOnce()) > 0);
      }),
    );
    expect(published.sort((a, b) => a - b)).toEqual(missed.map((e) => e.position));
  });

  it('polls in the background once started', async () => {
    const published: StoredEvent[] = [];
    const relay = new OutboxRelay(
      t.database.db,
      unpublished,
      async (events) => void published.push(...events),
      { minAgeMs: 0, intervalMs: 20 },
    );
    relay.start();
    const missed = await appendUnpublished(3);
    await waitFor(() => published.length === 3);
    await relay.stop();
    expect(published).toEqual(missed);
  });
});
