import type { ReadStreamOptions, StoredEvent } from '@flex/event-store';
import fc from 'fast-check';
import { pumpRun, RunFeed, type FrameSink, type PumpStop, type StreamSource } from './run-feed';
import { isInternalType, type StreamEnd } from './stream-end';

const STREAM = 'run-model';

/** The store's stream reads over an array (one stream), answering a turn later like a database. */
class MemoryStream implements StreamSource {
  readonly events: StoredEvent[] = [];
  /** How many events were stored when the latest read was asked for. */
  storedAtLastRead = 0;
  reads = 0;
  private tails = 0;

  /**
   * `recent`: whether the store is a sole writer that remembers what it appended (every time, or
   * every other time, as when it forgot the stream), answering tail reads (readTail) from memory.
   */
  constructor(private readonly recent: 'never' | 'always' | 'sometimes' = 'never') {}

  /** A sole writer's memory answers at once, with no turn; the database a turn later. */
  async readTail(streamId: string, afterVersion: number, limit: number): Promise<StoredEvent[]> {
    this.tails++;
    if (this.recent === 'never' || (this.recent === 'sometimes' && this.tails % 2 === 0))
      return this.readStream(streamId, { afterVersion, limit });
    this.storedAtLastRead = this.events.length;
    return this.events.filter((e) => e.streamId === streamId && e.version > afterVersion).slice(0, limit);
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<StoredEvent[]> {
    this.reads++;
    this.storedAtLastRead = this.events.length;
    const snapshot = [...this.events];
    await turn();
    return snapshot
      .filter((e) => e.streamId === streamId)
      .filter((e) => options.afterVersion === undefined || e.version > options.afterVersion)
      .filter((e) => options.afterPosition === undefined || e.position > options.afterPosition)
      .slice(0, options.limit ?? Infinity);
  }

  async streamVersion(): Promise<number> {
    const version = this.events.length;
    await turn();
    return version;
  }
}

/** A client's SSE connection: the positions of the event frames it got. */
class Recorder implements FrameSink {
  gone = false;
  readonly stalled = false;
  readonly ids: number[] = [];

  async write(chunk: string): Promise<void> {
    const id = /^id: (\d+)\n/.exec(chunk);
    if (!id) throw new Error(`an event frame without an id: ${chunk}`);
    this.ids.push(Number(id[1]));
    await Promise.resolve();
  }
  endLogs(): void {}
  keepAlive(): void {}
}

interface Connection {
  feed: RunFeed;
  sink: Recorder;
  done: Promise<PumpStop>;
  stop?: PumpStop;
}

type Delivery = 'now' | 'later' | 'twice' | 'lost';
type Op =
  | { kind: 'commit'; delivery: Delivery }
  | { kind: 'deliver'; pick: number }
  | { kind: 'turn' }
  | { kind: 'reconnect' };

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

const typeArb = fc.constantFrom(
  'plan_requested',
  'plan_drafted',
  'node_started',
  'node_complete',
  'run_paused',
  'run_resumed',
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('commit' as const), delivery: deliveryArb() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deliver' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'turn' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reconnect' as const }) },
);

function deliveryArb(): fc.Arbitrary<Delivery> {
  return fc.constantFrom<Delivery>('now', 'now', 'later', 'twice', 'lost');
}

/**
 * One run's stream followed over SSE while its events commit, with the bus handing them over at
 * once, late, twice, out of order or never, and the client reconnecting with Last-Event-ID at any
 * point. Then everything is committed and handed over, and the client reconnects until it ends.
 */
async function scenario(
  types: string[],
  terminal: string | undefined,
  end: StreamEnd,
  ops: Op[],
  recent: 'never' | 'always' | 'sometimes' = 'never',
) {
  const store = new MemoryStream(recent);
  const all = [...types, ...(terminal ? [terminal] : [])];
  const later: Array<{ feed: RunFeed; event: StoredEvent }> = [];
  const received: number[] = [];
  let position = 0;
  let current: Connection | undefined;

  const lastId = () => received.at(-1) ?? 0;
  const connect = (): Connection => {
    const feed = new RunFeed(STREAM, 3);
    const sink = new Recorder();
    const done = pumpRun(store, STREAM, { afterPosition: lastId(), end }, sink, feed, () => false);
    const connection: Connection = { feed, sink, done };
    void done.then((stop) => (connection.stop = stop));
    return connection;
  };
  const hangUp = async (connection: Connection) => {
    connection.sink.gone = true;
    connection.feed.ring();
    const stop = await connection.done;
    received.push(...connection.sink.ids);
    checkStop(stop);
  };
  /** A stream that stopped on its own said nothing stored was left (or the run ended). */
  const checkStop = (stop: PumpStop) => {
    const sent = [...received];
    if (stop === 'terminal') expect(sent).toEqual(expected(store.events));
    if (stop === 'paused' || (end === 'stored' && stop !== 'client_left'))
      expect(sent.length).toBeGreaterThanOrEqual(
        expected(store.events.slice(0, store.storedAtLastRead)).length,
      );
  };
  const commit = (delivery: Delivery) => {
    const type = all[store.events.length];
    position += 1 + (store.events.length % 3); // other streams' events lie between
    const event = storedEvent(type, store.events.length + 1, position);
    store.events.push(event);
    const feed = current?.feed;
    if (!feed) return;
    if (delivery === 'now' || delivery === 'twice') feed.offer(event);
    if (delivery === 'later' || delivery === 'twice') later.push({ feed, event });
  };

  current = connect();
  for (const op of ops) {
    if (op.kind === 'commit' && store.events.length < all.length) commit(op.delivery);
    else if (op.kind === 'deliver' && later.length > 0) {
      const [{ feed, event }] = later.splice(op.pick % later.length, 1);
      feed.offer(event);
    } else if (op.kind === 'turn') await turn();
    else if (op.kind === 'reconnect') {
      await hangUp(current);
      current = connect();
    }
  }
  while (store.events.length < all.length) commit('now');
  for (const { feed, event } of later.splice(0)) feed.offer(event);

  // The client follows until it has everything (a bounded number of connections and waits).
  for (let attempt = 0; attempt < 5; attempt++) {
    for (let i = 0; i < 400 && current.stop === undefined; i++) {
      if (received.length + current.sink.ids.length === expected(store.events).length && !terminal) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await hangUp(current);
    if (received.length === expected(store.events).length) break;
    current = connect();
  }
  expect(received).toEqual(expected(store.events));
  return store;
}

/** What a client must get, in this order: every stored event but the internal ones. */
function expected(events: readonly StoredEvent[]): number[] {
  return events.filter((e) => !isInternalType(e.type)).map((e) => e.position);
}

function storedEvent(type: string, version: number, position: number): StoredEvent {
  return {
    position,
    id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    streamId: STREAM,
    version,
    type,
    payload: {},
    metadata: { correlationId: 'c' },
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, position)).toISOString(),
  };
}

describe('pumpRun: SSE fed by the bus, with the store filling gaps', () => {
  it('sends every stored event once, in order, without gaps, across reconnects, whatever the bus does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(typeArb, { minLength: 1, maxLength: 12 }),
        fc.option(fc.constantFrom('complete', 'run_failed', 'run_cancelled'), { nil: undefined }),
        fc.constantFrom<StreamEnd>('terminal', 'terminal_or_rest', 'stored'),
        fc.array(opArb, { maxLength: 40 }),
        fc.constantFrom('never' as const, 'always' as const, 'sometimes' as const),
        async (types, terminal, end, ops, recent) => {
          await scenario(types, terminal, end, ops, recent);
        },
      ),
      { numRuns: 150, verbose: true },
    );
  });

  it('reads the store only at the start when the bus hands every event over in order', async () => {
    const store = new MemoryStream();
    const feed = new RunFeed(STREAM, 60_000);
    const sink = new Recorder();
    const done = pumpRun(store, STREAM, { afterPosition: 0, end: 'terminal' }, sink, feed, () => false);
    const types = ['start', 'plan_requested', 'plan_drafted', 'node_started', 'node_complete', 'complete'];
    for (const [i, type] of types.entries()) {
      await turn();
      const event = storedEvent(type, i + 1, 10 * (i + 1));
      store.events.push(event);
      feed.offer(event);
    }
    expect(await done).toBe('terminal');
    expect(sink.ids).toEqual(expected(store.events));
    expect(store.reads).toBe(1);
  });
});
