import { START_CHECKPOINT } from '@flex/event-store';
import {
  CHECKPOINT_PREFIX,
  StoreBackedEventBus,
  type StoreBackedEventBusOptions,
} from './store-backed-event-bus';
import { describeEventBusBehaviour } from './test-support/event-bus.behaviour';
import { at, MemoryEventLog } from './test-support/memory-event-log';
import { RecordingLogger } from './test-support/recording-logger';
import { deferred, waitFor } from './test-support/wait-for';
import type { Delivery } from './types';

// Fed: the store is its database's sole writer and tells the bus what it commits. Its poll is off
// there, so an event the feed fails to bring shows as one never delivered.
for (const fed of [false, true]) {
  describeEventBusBehaviour(`StoreBackedEventBus${fed ? ' fed by a sole writer' : ''}`, async () => {
    const log = new MemoryEventLog({ followable: fed });
    const poll = fed ? { pollIntervalMs: 3_600_000 } : {};
    const bus = new StoreBackedEventBus(log, { logger: new RecordingLogger(), ...poll });
    return {
      instance: async () => bus,
      emit: async (inputs) => {
        const events = fed ? log.commit(inputs) : log.append(inputs);
        await bus.publish(events);
        return events;
      },
      settled: async (durable) => log.saved.get(CHECKPOINT_PREFIX + durable)?.position === log.events.length,
      close: () => bus.close(),
    };
  });
}

describe('StoreBackedEventBus checkpoints', () => {
  const buses: StoreBackedEventBus[] = [];
  const open = (log: MemoryEventLog, options: StoreBackedEventBusOptions = {}) => {
    const bus = new StoreBackedEventBus(log, { logger: new RecordingLogger(), ...options });
    buses.push(bus);
    return bus;
  };
  const checkpointOf = (log: MemoryEventLog, durable: string) =>
    log.saved.get(CHECKPOINT_PREFIX + durable)?.position;
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  /** A consumer that holds every delivery until the test acks it by position. */
  async function holding(bus: StoreBackedEventBus, durable = 'projector') {
    const held = new Map<number, Delivery>();
    const gate = deferred();
    const consumer = await bus.consume({ durable, concurrency: 10, ackWaitMs: 60_000 }, async (delivery) => {
      held.set(delivery.event.position, delivery);
      await gate.promise;
    });
    const ack = (...positions: number[]) => Promise.all(positions.map((p) => held.get(p)!.ack()));
    return { held, ack, release: gate.resolve, consumer };
  }

  it('persists the checkpoint only past contiguously acked events', async () => {
    const log = new MemoryEventLog();
    const bus = open(log);
    const { held, ack, release } = await holding(bus);
    await bus.publish(log.append([1, 2, 3, 4, 5].map(() => ({ type: 'e' }))));
    await waitFor('5 held', () => held.size === 5);

    await ack(1, 2, 4);
    await waitFor('checkpoint after 2', () => checkpointOf(log, 'projector') === 2);
    await ack(3);
    await waitFor('checkpoint after 4', () => checkpointOf(log, 'projector') === 4);
    await ack(5);
    await waitFor('checkpoint after 5', () => checkpointOf(log, 'projector') === 5);
    release();
  });

  it('redelivers after a restart whatever was not acked (at least once)', async () => {
    const log = new MemoryEventLog();
    const crashed = open(log);
    const first = await holding(crashed);
    await crashed.publish(log.append([1, 2, 3, 4, 5].map(() => ({ type: 'e' }))));
    await waitFor('5 held', () => first.held.size === 5);
    await first.ack(1, 2, 4);
    await waitFor('checkpoint after 2', () => checkpointOf(log, 'projector') === 2);

    // The process dies here: a new bus on the same store takes over from the persisted checkpoint.
    const restarted = open(log);
    const redelivered: number[] = [];
    await restarted.consume(
      { durable: 'projector' },
      async ({ event }) => void redelivered.push(event.position),
    );
    await waitFor('3, 4, 5 redelivered', () => redelivered.length === 3);
    expect(redelivered).toEqual([3, 4, 5]);
    await waitFor('checkpoint after 5', () => checkpointOf(log, 'projector') === 5);

    const closing = crashed.close(); // let the dead one's held handlers go without settling anything
    first.release();
    await closing;
  });

  it('advances by whole pages when the log gives no per-event checkpoints', async () => {
    const log = new MemoryEventLog({ perEventCheckpoints: false });
    const bus = open(log, { batchSize: 2 });
    const { held, ack, release } = await holding(bus);
    await bus.publish(log.append([1, 2, 3, 4].map(() => ({ type: 'e' }))));
    await waitFor('4 held', () => held.size === 4);
    await ack(1, 3);
    await new Promise((r) => setImmediate(r));
    expect(checkpointOf(log, 'projector')).toBeUndefined();
    await ack(2);
    await waitFor('checkpoint at the first page end', () => checkpointOf(log, 'projector') === 2);
    await ack(4);
    await waitFor('checkpoint at the second page end', () => checkpointOf(log, 'projector') === 4);
    release();
  });

  it('delivers an event id once even when the log holds it twice', async () => {
    const log = new MemoryEventLog();
    const bus = open(log);
    const seen: number[] = [];
    await bus.consume({ durable: 'dedupe' }, async ({ event }) => void seen.push(event.position));
    await bus.publish(log.append([{ type: 'e', id: 'same' }, { type: 'e', id: 'same' }, { type: 'e' }]));
    await waitFor('checkpoint past all three', () => checkpointOf(log, 'dedupe') === 3);
    expect(seen).toEqual([1, 3]);
  });

  it('finds events nobody published with its safety-net poll', async () => {
    const log = new MemoryEventLog();
    const bus = open(log, { pollIntervalMs: 50 });
    const seen: string[] = [];
    await bus.consume({ durable: 'poller' }, async ({ event }) => void seen.push(event.id));
    const [event] = log.append([{ type: 'committed_but_not_published' }]);
    await waitFor('polled', () => seen.includes(event.id));
  });

  it('pauses reading while its window is full and resumes as it drains', async () => {
    const log = new MemoryEventLog();
    const bus = open(log, { batchSize: 2, maxPending: 4 });
    let handled = 0;
    await bus.consume({ durable: 'window', concurrency: 2 }, async () => void handled++);
    await bus.publish(log.append(Array.from({ length: 25 }, () => ({ type: 'e' }))));
    await waitFor('25 handled', () => handled === 25);
    await waitFor('checkpoint at the end', () => checkpointOf(log, 'window') === 25);
  });

  it('starts a new durable from the beginning and keeps durables apart', async () => {
    const log = new MemoryEventLog();
    log.append([{ type: 'old' }]);
    await log.saveCheckpoint(CHECKPOINT_PREFIX + 'caught_up', at(1));
    const bus = open(log);
    const fresh: string[] = [];
    const caughtUp: string[] = [];
    await bus.consume({ durable: 'fresh' }, async ({ event }) => void fresh.push(event.type));
    await bus.consume({ durable: 'caught_up' }, async ({ event }) => void caughtUp.push(event.type));
    await bus.publish(log.append([{ type: 'new' }]));
    await waitFor('both saw the new one', () => fresh.includes('new') && caughtUp.includes('new'));
    expect(fresh).toEqual(['old', 'new']);
    expect(caughtUp).toEqual(['new']);
    expect(log.reads).toContainEqual(START_CHECKPOINT); // where "fresh" began
  });

  it('waits for handlers in flight on close, saves their checkpoint, then refuses work', async () => {
    const log = new MemoryEventLog();
    const bus = open(log);
    const gate = deferred();
    let started = false;
    await bus.consume({ durable: 'closing' }, async () => {
      started = true;
      await gate.promise;
    });
    await bus.publish(log.append([{ type: 'e' }]));
    await waitFor('handler started', () => started);
    let closed = false;
    const closing = bus.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    gate.resolve();
    await closing;
    expect(log.saved.get(CHECKPOINT_PREFIX + 'closing')).toEqual(at(1));
    await expect(bus.publish([])).rejects.toMatchObject({ code: 'BUS_CLOSED' });
    await expect(bus.consume({ durable: 'late' }, async () => undefined)).rejects.toMatchObject({
      code: 'BUS_CLOSED',
    });
  });

  it('does not read the log for a durable nobody consumes any more', async () => {
    const log = new MemoryEventLog();
    const bus = open(log);
    const consumer = await bus.consume({ durable: 'gone' }, async () => undefined);
    await bus.publish(log.append([{ type: 'e' }]));
    await waitFor('acked', () => checkpointOf(log, 'gone') === 1);
    await consumer.stop();
    const reads = log.reads.length;
    await bus.publish(log.append([{ type: 'e' }]));
    expect(log.reads).toHaveLength(reads);
    expect(checkpointOf(log, 'gone')).toBe(1);
  });
});
