import { StoreBackedEventBus } from './store-backed-event-bus';
import { at, MemoryEventLog } from './test-support/memory-event-log';
import { RecordingLogger } from './test-support/recording-logger';
import { waitFor } from './test-support/wait-for';

/** No safety-net poll here: an event the feed fails to bring shows as one never delivered. */
const NO_POLL = { pollIntervalMs: 3_600_000 };

describe('StoreBackedEventBus fed by a sole writer', () => {
  const buses: StoreBackedEventBus[] = [];
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  /** A bus over a followable log, one durable recording what it handles, caught up with the log. */
  async function consuming(log: MemoryEventLog) {
    const bus = new StoreBackedEventBus(log, { logger: new RecordingLogger(), ...NO_POLL });
    buses.push(bus);
    const seen: number[] = [];
    await bus.consume({ durable: 'fed' }, async ({ event }) => void seen.push(event.position));
    await waitFor('the first read', () => log.reads.length > 0);
    /** Commits (told), publishes as the store's afterCommit does, and waits until handled. */
    const commit = async (count: number) => {
      const events = log.commit(Array.from({ length: count }, () => ({ type: 'e' })));
      await bus.publish(events);
      await waitFor('handled', () => seen.includes(events[events.length - 1].position));
    };
    return { bus, seen, commit };
  }

  it('hands over what the store commits without reading it back', async () => {
    const log = new MemoryEventLog({ followable: true });
    log.commit([{ type: 'before' }]);
    const { seen, commit } = await consuming(log);
    await waitFor('caught up', () => seen.includes(1));
    const reads = log.reads.length;
    for (const count of [1, 3, 2]) await commit(count);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(log.reads).toHaveLength(reads);
  });

  it('reads the log from the window end when a commit was not told, then is fed again', async () => {
    const log = new MemoryEventLog({ followable: true });
    const { seen, commit } = await consuming(log);
    await commit(2);
    log.append([{ type: 'not_told' }]);
    const reads = log.reads.length;
    await commit(1);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(log.reads.slice(reads)).toContainEqual(at(2));
    const after = log.reads.length;
    await commit(2);
    expect(log.reads).toHaveLength(after);
  });

  it('reads past positions a failed append burnt', async () => {
    const log = new MemoryEventLog({ followable: true });
    const { seen, commit } = await consuming(log);
    await commit(1);
    log.burn(2);
    await commit(2);
    expect(seen).toEqual([1, 4, 5]);
  });

  it('reads when the store is unsure whether an append committed', async () => {
    const log = new MemoryEventLog({ followable: true });
    const { seen } = await consuming(log);
    log.append([{ type: 'outcome_lost' }]);
    log.unsure();
    await waitFor('read and handled', () => seen.includes(1));
  });

  it('reads for a published event the store did not tell', async () => {
    const log = new MemoryEventLog({ followable: true });
    const { bus, seen } = await consuming(log);
    await bus.publish(log.append([{ type: 'another_writer' }]));
    await waitFor('read and handled', () => seen.includes(1));
  });

  it('stops following on close', async () => {
    const log = new MemoryEventLog({ followable: true });
    const { bus } = await consuming(log);
    expect(log.following).toBe(1);
    await bus.close();
    expect(log.following).toBe(0);
  });
});
