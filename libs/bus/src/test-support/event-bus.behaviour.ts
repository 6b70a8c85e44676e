import type { StoredEvent } from '@flex/event-store';
import type { DeadLetter, Delivery, EventBus } from '../types';
import type { TestEventInput } from './memory-event-log';
import { deferred, waitFor } from './wait-for';

/** What the shared behaviour suite needs from one bus implementation. */
export interface BusHarness {
  /** The bus one service instance uses: NATS gives each its own connection; embedded mode has one bus. */
  instance(): Promise<EventBus>;
  /** Commit (where the bus reads a store) and publish events. */
  emit(events: readonly TestEventInput[]): Promise<StoredEvent[]>;
  /** Nothing left to deliver or awaiting an ack on this durable. */
  settled(durable: string): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The EventBus contract, run against every implementation (DESIGN §4: one behaviour, two adapters).
 * Each test gets a fresh harness (a new stream or log), since a new durable starts from the beginning.
 */
export function describeEventBusBehaviour(name: string, makeHarness: () => Promise<BusHarness>): void {
  describe(`${name} (EventBus behaviour)`, () => {
    let h: BusHarness;
    beforeEach(async () => (h = await makeHarness()));
    afterEach(() => h.close());

    it('delivers each event once and acks it when the handler resolves', async () => {
      const d = 'once';
      const bus = await h.instance();
      const seen: StoredEvent[] = [];
      const consumer = await bus.consume(
        { durable: d, ackWaitMs: 5000 },
        async ({ event }) => void seen.push(event),
      );
      const events = await h.emit([{ type: 'a' }, { type: 'b' }, { type: 'c' }]);
      await waitFor('3 deliveries', () => events.every((e) => seen.some((s) => s.id === e.id)));
      await waitFor('all acked', () => h.settled(d));
      const mine = seen.filter((s) => events.some((e) => e.id === s.id));
      expect(mine.map((e) => e.type)).toEqual(['a', 'b', 'c']);
      expect(mine[0]).toEqual(events[0]);
      await consumer.stop();
    });

    it('shares one durable between instances: 100 events split, none lost or doubled', async () => {
      const d = 'split';
      const counts = [new Map<string, number>(), new Map<string, number>()];
      const consumers = await Promise.all(
        counts.map(async (count) =>
          (await h.instance()).consume({ durable: d, concurrency: 4 }, async ({ event }) => {
            count.set(event.id, (count.get(event.id) ?? 0) + 1);
            await new Promise((r) => setTimeout(r, 2)); // a little work, so both instances get a share
          }),
        ),
      );
      const events = await h.emit(
        Array.from({ length: 100 }, (_, i) => ({ type: 'split', streamId: `run-${i % 7}` })),
      );
      const ids = new Set(events.map((e) => e.id));
      const handled = () => counts.flatMap((c) => [...c.keys()]).filter((id) => ids.has(id));
      await waitFor('100 handled', () => new Set(handled()).size === 100);
      await waitFor('all acked', () => h.settled(d));
      expect(handled()).toHaveLength(100);
      expect(counts.flatMap((c) => [...c.values()]).every((n) => n === 1)).toBe(true);
      expect(counts.every((c) => c.size > 0)).toBe(true);
      await Promise.all(consumers.map((c) => c.stop()));
    });

    it('redelivers after a retryable failure, with backoff, and acks the retry', async () => {
      const d = 'retry';
      const attempts: Array<{ count: number; at: number }> = [];
      const consumer = await (
        await h.instance()
      ).consume({ durable: d, maxDeliver: 5 }, async (delivery) => {
        attempts.push({ count: delivery.deliveryCount, at: Date.now() });
        if (delivery.deliveryCount < 2) throw Object.assign(new Error('flaky'), { code: 'FLAKY' });
      });
      await h.emit([{ type: 'retry' }]);
      await waitFor('second attempt', () => attempts.length === 2);
      await waitFor('acked', () => h.settled(d));
      expect(attempts.map((a) => a.count)).toEqual([1, 2]);
      expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(150); // base backoff 200ms
      await consumer.stop();
    });

    it('redelivers what a handler naks itself', async () => {
      const d = 'nak';
      const counts: number[] = [];
      const consumer = await (
        await h.instance()
      ).consume({ durable: d }, async (delivery) => {
        counts.push(delivery.deliveryCount);
        if (delivery.deliveryCount === 1) delivery.nak(0);
        else await delivery.ack();
      });
      await h.emit([{ type: 'nak' }]);
      await waitFor('redelivery', () => counts.length === 2);
      await waitFor('acked', () => h.settled(d));
      expect(counts).toEqual([1, 2]);
      await consumer.stop();
    });

    it('redelivers to another instance what one did not ack within ackWait', async () => {
      const d = 'ackwait';
      const stuck = deferred();
      const byA: number[] = [];
      const byB: number[] = [];
      const a = await (
        await h.instance()
      ).consume({ durable: d, ackWaitMs: 1000 }, async (delivery) => {
        byA.push(delivery.deliveryCount);
        await stuck.promise; // hangs, never acks in time
      });
      await h.emit([{ type: 'slow' }]);
      await waitFor('A got it', () => byA.length === 1);
      const b = await (
        await h.instance()
      ).consume({ durable: d, ackWaitMs: 1000 }, async (delivery) => void byB.push(delivery.deliveryCount));
      await waitFor('B got the redelivery', () => byB.length === 1);
      expect(byB).toEqual([2]);
      await waitFor('acked by B', () => h.settled(d));
      stuck.resolve();
      await Promise.all([a.stop(), b.stop()]);
    });

    it('extends the deadline while the handler says it is working', async () => {
      const d = 'working';
      const counts: number[] = [];
      let done = false;
      const consumer = await (
        await h.instance()
      ).consume({ durable: d, ackWaitMs: 1000 }, async (delivery) => {
        counts.push(delivery.deliveryCount);
        for (let i = 0; i < 6; i++) {
          await new Promise((r) => setTimeout(r, 300)); // long work: 1.8s, past the 1s ack wait
          delivery.working();
        }
        done = true;
      });
      await h.emit([{ type: 'long' }]);
      await waitFor('work done', () => done);
      await waitFor('acked', () => h.settled(d));
      expect(counts).toEqual([1]);
      await consumer.stop();
    });

    it('dead-letters exactly once after maxDeliver failures', async () => {
      const d = 'maxdeliver';
      const calls: number[] = [];
      const dead: DeadLetter[] = [];
      const handled: string[] = [];
      const consumer = await (
        await h.instance()
      ).consume(
        { durable: d, maxDeliver: 3, onDeadLetter: async (letter) => void dead.push(letter) },
        async ({ event, deliveryCount }) => {
          if (event.type === 'sentinel') return void handled.push(event.id);
          calls.push(deliveryCount);
          throw new Error('always fails');
        },
      );
      const [poison] = await h.emit([{ type: 'poison' }]);
      await waitFor('dead letter', () => dead.length === 1);
      const [sentinel] = await h.emit([{ type: 'sentinel' }]);
      await waitFor('sentinel handled', () => handled.includes(sentinel.id));
      await waitFor('all settled', () => h.settled(d));
      expect(calls).toEqual([1, 2, 3]);
      expect(dead).toHaveLength(1);
      expect(dead[0]).toMatchObject({ consumer: d, deliveryCount: 3, event: { id: poison.id } });
      expect(dead[0].reason).toContain('always fails');
      await consumer.stop();
    });

    it('dead-letters a non-retryable failure at once, and a term() by the handler', async () => {
      const d = 'fatal';
      const calls: string[] = [];
      const dead: DeadLetter[] = [];
      const consumer = await (
        await h.instance()
      ).consume(
        { durable: d, maxDeliver: 5, onDeadLetter: async (letter) => void dead.push(letter) },
        async (delivery: Delivery) => {
          calls.push(delivery.event.type);
          if (delivery.event.type === 'fatal')
            throw Object.assign(new Error('bad input'), { code: 'BAD_INPUT', retryable: false });
          delivery.term('cannot handle this one');
        },
      );
      await h.emit([{ type: 'fatal' }, { type: 'termed' }]);
      await waitFor('two dead letters', () => dead.length === 2);
      await waitFor('settled', () => h.settled(d));
      expect(calls.sort()).toEqual(['fatal', 'termed']);
      const reasons = Object.fromEntries(dead.map((l) => [l.event.type, l]));
      expect(reasons.fatal).toMatchObject({ deliveryCount: 1, reason: 'BAD_INPUT: bad input' });
      expect(reasons.termed).toMatchObject({ deliveryCount: 1, reason: 'cannot handle this one' });
      await consumer.stop();
    });

    it('acks types the consumer does not handle without calling it', async () => {
      const d = 'types';
      const seen: string[] = [];
      const consumer = await (
        await h.instance()
      ).consume({ durable: d, types: ['wanted'] }, async ({ event }) => void seen.push(event.type));
      await h.emit([{ type: 'other' }, { type: 'wanted' }, { type: 'noise' }, { type: 'wanted' }]);
      await waitFor('both wanted', () => seen.length === 2);
      await waitFor('everything acked', () => h.settled(d));
      expect(seen).toEqual(['wanted', 'wanted']);
      await consumer.stop();
    });

    it('runs at most `concurrency` handlers at once', async () => {
      const d = 'concurrency';
      let running = 0;
      let peak = 0;
      let handled = 0;
      const consumer = await (
        await h.instance()
      ).consume({ durable: d, concurrency: 3 }, async () => {
        peak = Math.max(peak, ++running);
        await new Promise((r) => setTimeout(r, 20));
        running--;
        handled++;
      });
      await h.emit(Array.from({ length: 12 }, () => ({ type: 'work' })));
      await waitFor('12 handled', () => handled === 12);
      expect(peak).toBe(3);
      await consumer.stop();
    });

    it('tells watchers about new events of their stream only, until they unwatch', async () => {
      const bus = await h.instance();
      const first: string[] = [];
      const unwatch = await bus.watch('watched.run-1', (event) => void first.push(event.id));
      const [mine] = await h.emit([
        { type: 'x', streamId: 'watched.run-1' },
        { type: 'x', streamId: 'watched.run-2' },
      ]);
      await waitFor('watch hint', () => first.length === 1);
      expect(first).toEqual([mine.id]);
      unwatch();
      const second: string[] = [];
      const unwatchSecond = await bus.watch('watched.run-1', (event) => void second.push(event.id));
      const [later] = await h.emit([{ type: 'y', streamId: 'watched.run-1' }]);
      await waitFor('the second watcher sees it', () => second.includes(later.id));
      expect(first).toEqual([mine.id]);
      unwatchSecond();
    });
  });
}
