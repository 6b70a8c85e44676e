import fc from 'fast-check';
import { EventStore } from './event-store';
import { newEvent, pgliteBackend, type TestStore } from './store.spec-helper';

const STREAMS = ['tail-a', 'tail-b', 'tail-c'];

describe('EventStore.readTail (PGlite, the sole writer)', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await pgliteBackend.open('read-tail');
  });
  afterAll(() => t.close());

  it('gives what the stream holds after a version, from memory or the database alike (property)', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ stream: fc.nat(2), events: fc.integer({ min: 1, max: 3 }) }), { maxLength: 15 }),
        fc.array(
          fc.record({
            stream: fc.nat(2),
            after: fc.nat(12),
            limit: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
            forget: fc.boolean(),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        async (appends, reads) => {
          round++;
          const writer = new EventStore(t.database.db, { soleWriter: true });
          // Another store on the same database reads it only: the oracle.
          const reader = new EventStore(t.database.db);
          const id = (stream: number) => `${STREAMS[stream]}-${round}`;
          for (const { stream, events } of appends) {
            const batch = Array.from({ length: events }, () => newEvent());
            await writer.append(id(stream), batch, { expectedVersion: 'any' });
          }
          for (const { stream, after, limit, forget } of reads) {
            if (forget) writer.forgetStream(id(stream));
            const tail = await writer.readTail(id(stream), after, limit);
            const stored = await reader.readStream(id(stream), { afterVersion: after, limit });
            expect(tail).toEqual(stored);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('answers a stream it appended lately without a read, with the events its appends returned', async () => {
    const writer = new EventStore(t.database.db, { soleWriter: true });
    const { events } = await writer.append('tail-known', [newEvent(), newEvent(), newEvent()], {
      expectedVersion: 'no_stream',
    });
    const tail = await writer.readTail('tail-known', 1);
    expect(tail).toHaveLength(2);
    tail.forEach((event, i) => expect(event).toBe(events[i + 1]));
    expect((await writer.readTail('tail-known', 0, 1))[0]).toBe(events[0]);
    // Forgotten (a writer removed the stream's events outside the store): read again.
    writer.forgetStream('tail-known');
    const read = await writer.readTail('tail-known', 1);
    expect(read).toEqual(tail);
    expect(read[0]).not.toBe(events[1]);
  });

  it('always reads when the store is not the sole writer', async () => {
    const store = new EventStore(t.database.db);
    const { events } = await store.append('tail-shared', [newEvent()], { expectedVersion: 'no_stream' });
    const [read] = await store.readTail('tail-shared', 0);
    expect(read).toEqual(events[0]);
    expect(read).not.toBe(events[0]);
  });
});
