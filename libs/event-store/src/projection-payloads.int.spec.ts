import { EventStore } from './event-store';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { backends, capturingLogger, newEvent, TestStore, uniqueStream, waitFor } from './store.spec-helper';
import { START_CHECKPOINT, type StoredEvent } from './types';

/** What a projection saw of an event: its payload, or that it was left out. */
type Seen = { type: string; payload: unknown };

/** The payload as a projection reading it would get it, or 'left out' when reading it throws so. */
function payloadSeen(event: StoredEvent): unknown {
  try {
    return event.payload;
  } catch (error) {
    if ((error as { code?: string }).code === 'PAYLOAD_LEFT_OUT') return 'left out';
    throw error;
  }
}

/** Records what it sees of each event, by event id, in memory. */
function recording(
  name: string,
  unread?: string[],
  handles?: string[],
): Projection & { seen: Map<string, Seen> } {
  const seen = new Map<string, Seen>();
  return {
    name,
    seen,
    ...(unread ? { unreadPayloads: unread } : {}),
    ...(handles ? { handles } : {}),
    async apply(_trx, event) {
      seen.set(event.id, { type: event.type, payload: payloadSeen(event) });
    },
    async reset() {
      seen.clear();
    },
  };
}

describe.each(backends)('Projection.unreadPayloads on $kind', (backend) => {
  let t: TestStore;
  let store: EventStore;
  const runners: ProjectionRunner[] = [];

  beforeAll(async () => {
    t = await backend.open('projection_payloads');
    store = new EventStore(t.database.db);
  });
  afterAll(async () => {
    for (const runner of runners) await runner.stop();
    await t.close();
  });

  const runnerOf = (...projections: Projection[]) => {
    const runner = new ProjectionRunner(t.database.db, store, projections, {
      batchSize: 2,
      pollMs: 60_000,
      logger: capturingLogger(),
    });
    runners.push(runner);
    return runner;
  };

  /** A stream of a bulky, a small and an odd event, and what each is as appended. */
  async function appendThree(): Promise<StoredEvent[]> {
    const stream = uniqueStream();
    const given = [
      newEvent('bulky', { plan: 'x'.repeat(5_000) }),
      newEvent('small', { n: 2 }),
      newEvent('odd', { n: 3 }),
    ];
    return (await store.append(stream, given, { expectedVersion: 'no_stream' })).events;
  }

  /** What `projection` saw of `events`, once it has seen them all. */
  async function seenOf(
    projection: ReturnType<typeof recording>,
    events: StoredEvent[],
    catchUp: () => unknown,
  ) {
    await waitFor(async () => (await catchUp(), events.every((e) => projection.seen.has(e.id))));
    return events.map((e) => projection.seen.get(e.id));
  }

  it('a rebuild leaves out the payloads of the declared types only; other readers get them all', async () => {
    const events = await appendThree();
    const projection = recording('unread_rebuild', ['bulky']);
    const runner = runnerOf(projection);

    expect(await seenOf(projection, events, () => runner.rebuild(projection.name))).toEqual([
      { type: 'bulky', payload: 'left out' },
      { type: 'small', payload: { n: 2 } },
      { type: 'odd', payload: { n: 3 } },
    ]);
    let read: StoredEvent[] = [];
    await waitFor(async () => {
      read = (await store.readAll(START_CHECKPOINT, 10_000)).events;
      return events.every((e) => read.some((r) => r.id === e.id));
    });
    expect(read.filter((r) => events.some((e) => e.id === r.id)).map((r) => r.payload)).toEqual(
      events.map((e) => e.payload),
    );
  });

  it('a read shared by projections leaves out only what none of them reads', async () => {
    const events = await appendThree();
    // b reads odd's payload: only bulky is left out of the read it shares with a.
    const [a, b] = [recording('unread_a', ['bulky', 'odd']), recording('unread_b', ['bulky'])];
    const ab = runnerOf(a, b);
    expect(await seenOf(a, events, () => ab.catchUp())).toEqual([
      { type: 'bulky', payload: 'left out' },
      { type: 'small', payload: { n: 2 } },
      { type: 'odd', payload: { n: 3 } },
    ]);
    expect(await seenOf(b, events, () => ab.catchUp())).toEqual(await seenOf(a, events, () => ab.catchUp()));

    // c handles small only, so reads neither bulky's nor odd's payload.
    const [a2, c] = [recording('unread_a2', ['bulky', 'odd']), recording('unread_c', undefined, ['small'])];
    const ac = runnerOf(a2, c);
    expect(await seenOf(a2, events, () => ac.catchUp())).toEqual([
      { type: 'bulky', payload: 'left out' },
      { type: 'small', payload: { n: 2 } },
      { type: 'odd', payload: 'left out' },
    ]);
  });
});
