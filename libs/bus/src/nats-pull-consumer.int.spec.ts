import { natsTestUrl, testPrefix } from '@flex/testing';
import fc from 'fast-check';
import { connect } from 'nats';
import { NatsEventBus } from './nats-event-bus';
import { storedEvent } from './test-support/memory-event-log';
import { waitFor } from './test-support/wait-for';
import type { Consumer } from './types';

/** Far beyond the bound below: a message stranded in a stopped instance's pull would wait it out. */
const ACK_WAIT_MS = 60_000;
/** A quarter of the ack wait: a hand-back (nak, 1 s delay) plus a pull taken as over (2 s), with room for load. */
const HANDED_ON_WITHIN_MS = ACK_WAIT_MS / 4;

/** One instance's life: started, given events, stopped while more are published. */
const roundArb = fc.record({
  concurrency: fc.integer({ min: 1, max: 3 }),
  handlerMs: fc.integer({ min: 0, max: 30 }),
  before: fc.integer({ min: 0, max: 3 }),
  stopAfterMs: fc.integer({ min: 0, max: 1_200 }),
  duringStop: fc.integer({ min: 0, max: 4 }),
  gapMs: fc.integer({ min: 0, max: 400 }),
  // The next instance starts before this one's stop() is over (two instances share the durable).
  overlap: fc.boolean(),
});
type Round = typeof roundArb extends fc.Arbitrary<infer T> ? T : never;

describe('NatsPullConsumer stopping amid publishes (property, real nats-server)', () => {
  it('hands every event on to the next instance well inside the ack wait, never over its concurrency', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(roundArb, { minLength: 1, maxLength: 3 }),
        fc.nat(3),
        // Around the instant the last instance's first pull expires (1 s): nats-server 2.9 drops a
        // pull that expires just as a message is ready for it, without a word.
        fc.integer({ min: 900, max: 1_100 }),
        runScenario,
      ),
      { numRuns: 5, endOnFailure: true },
    );
  }, 120_000);
});

async function runScenario(rounds: Round[], lastConcurrency: number, lateMs: number): Promise<void> {
  const prefix = testPrefix('pull');
  const buses: NatsEventBus[] = [];
  const bus = async () => {
    const b = await NatsEventBus.connect({ url: natsTestUrl(), prefix });
    buses.push(b);
    return b;
  };
  const publisher = await bus();
  const nc = await connect({ servers: natsTestUrl() }); // to look at the durable from outside
  const jsm = await nc.jetstreamManager();
  const published: string[] = [];
  const handled = new Set<string>();
  let overConcurrency = 0;
  const emit = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const event = storedEvent(published.length + 1, { type: 'work' });
      published.push(event.id);
      await publisher.publish([event]);
    }
  };
  const start = async (concurrency: number, handlerMs = 0): Promise<Consumer> => {
    let inHand = 0;
    return (await bus()).consume(
      { durable: 'handover', ackWaitMs: ACK_WAIT_MS, concurrency },
      async ({ event }) => {
        if (++inHand > concurrency) overConcurrency++;
        await new Promise((resolve) => setTimeout(resolve, handlerMs)); // the handler's work
        handled.add(event.id);
        inHand--;
      },
    );
  };
  try {
    const stops: Promise<void>[] = [];
    for (const round of rounds) {
      const instance = await start(round.concurrency, round.handlerMs);
      await emit(round.before);
      await new Promise((resolve) => setTimeout(resolve, round.stopAfterMs));
      const stopped = instance.stop();
      for (let i = 0; i < round.duringStop; i++) {
        await emit(1);
        await new Promise((resolve) => setTimeout(resolve, round.gapMs));
      }
      if (round.overlap) stops.push(stopped);
      else await stopped;
    }
    const last = await start(lastConcurrency + 1);
    await new Promise((resolve) => setTimeout(resolve, lateMs));
    await emit(1);
    const all = () => published.every((id) => handled.has(id));
    await waitFor(`all ${published.length} events handled`, all, HANDED_ON_WITHIN_MS);
    await Promise.all(stops);
    await waitFor('nothing pending or unacked', async () => {
      const info = await jsm.consumers.info(publisher.streamName, 'handover');
      return info.num_pending === 0 && info.num_ack_pending === 0;
    });
    await last.stop();
    expect(overConcurrency).toBe(0);
  } finally {
    await Promise.all(buses.map((b) => b.close()));
    await jsm.streams.delete(publisher.streamName).catch(() => undefined);
    await nc.close();
  }
}
