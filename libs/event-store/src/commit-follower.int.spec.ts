import { EventStore, type CommitFollower } from './event-store';
import type { ReadAllPage } from './read';
import { capturingLogger, newEvent, pgliteBackend, TestStore, uniqueStream } from './store.spec-helper';
import type { Checkpoint } from './types';

/**
 * A sole writer's store tells its followers what it commits (the embedded bus feeds its window from
 * this): the events of each committed group, in commit order, with the checkpoints a gap-safe read
 * gives them. And what the bus's gap check rests on: on PGlite a refused append takes no position,
 * while an append that fails in its statement (a duplicate event id) burns the values it took.
 */
describe('EventStore commit followers (PGlite, sole writer)', () => {
  let t: TestStore;
  let store: EventStore;
  const told: ReadAllPage[] = [];
  let unsure = 0;
  const follower: CommitFollower = { committed: (page) => told.push(page), unsure: () => unsure++ };

  beforeAll(async () => {
    t = await pgliteBackend.open('followers');
    store = new EventStore(t.database.db, { soleWriter: true, logger: capturingLogger() });
    store.follow(follower);
  });
  afterAll(() => t.close());
  beforeEach(() => void told.splice(0));

  it('tells each committed group, in commit order, with the checkpoints a read gives', async () => {
    const start = await endOfLog(store);
    const key = uniqueStream('key');
    const replayed = uniqueStream();
    await store.append(replayed, [newEvent('k')], { expectedVersion: 'no_stream', idempotencyKey: key });
    const appends = Array.from({ length: 6 }, (_, i) =>
      store.append(uniqueStream(), [newEvent('a'), newEvent('b')].slice(0, 1 + (i % 2)), {
        expectedVersion: 'no_stream',
      }),
    );
    const refusedStream = uniqueStream();
    const refused = store.append(refusedStream, [newEvent('late')], { expectedVersion: 4 });
    const replay = store.append(replayed, [newEvent('k')], { expectedVersion: 'any', idempotencyKey: key });
    await Promise.all([...appends, replay, refused.catch(() => undefined)]);
    await store.appendBatch([
      { streamId: uniqueStream(), events: [newEvent('x')], options: { expectedVersion: 'no_stream' } },
      { streamId: uniqueStream(), events: [newEvent('y')], options: { expectedVersion: 'no_stream' } },
    ]);

    const read = await store.readAll(start, 100);
    expect(told.length).toBeGreaterThan(1);
    expect(told.flatMap((p) => p.events)).toEqual(read.events);
    expect(told.flatMap((p) => p.checkpoints)).toEqual(read.checkpoints);
    for (const page of told) expect(page.checkpoint).toEqual(page.checkpoints.at(-1));
    expect(read.events.map((e) => e.streamId)).not.toContain(refusedStream);
    expect(unsure).toBe(0);
  });

  it('takes no position for a refused append; a duplicate event id burns what it took', async () => {
    const stream = uniqueStream();
    const [first] = (await store.append(stream, [newEvent()], { expectedVersion: 'no_stream' })).events;
    await expect(store.append(stream, [newEvent()], { expectedVersion: 7 })).rejects.toMatchObject({
      code: 'WRONG_EXPECTED_VERSION',
    });
    const [second] = (await store.append(stream, [newEvent()], { expectedVersion: 1 })).events;
    expect(second.position).toBe(first.position + 1);

    const again = { ...newEvent(), id: second.id };
    await expect(
      store.append(uniqueStream(), [newEvent(), again], { expectedVersion: 'no_stream' }),
    ).rejects.toMatchObject({ code: 'DUPLICATE_EVENT_ID' });
    const [third] = (await store.append(stream, [newEvent()], { expectedVersion: 2 })).events;
    expect(third.position).toBeGreaterThan(second.position + 1);
    expect(told.flatMap((p) => p.events.map((e) => e.position))).toEqual([
      first.position,
      second.position,
      third.position,
    ]);
  });

  it('can only be followed as a sole writer', () => {
    const shared = new EventStore(t.database.db);
    expect(() => shared.follow(follower)).toThrow(/sole writer/);
  });
});

async function endOfLog(store: EventStore): Promise<Checkpoint> {
  let page = await store.readAll({ transactionId: '0', position: 0 }, 1000);
  let end = page.checkpoint;
  while (page.events.length > 0) {
    end = page.checkpoint;
    page = await store.readAll(end, 1000);
  }
  return end;
}
