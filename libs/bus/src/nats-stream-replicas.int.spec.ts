import { natsTestUrl, startNatsCluster, testPrefix } from '@flex/testing';
import { connect, type NatsConnection } from 'nats';
import { NatsEventBus } from './nats-event-bus';
import { eventStreamName } from './subjects';
import { storedEvent } from './test-support/memory-event-log';

/**
 * The event stream's replicas (FLEX_NATS_STREAM_REPLICAS): 3 copies on a real JetStream cluster of 3
 * (as deploy/k8s runs it), 1 on a single server, and a clear refusal when the servers cannot hold
 * the copies asked for.
 */
describe('NatsEventBus stream replicas', () => {
  it('refuses a count NATS does not allow before connecting', async () => {
    for (const replicas of [0, 6, 1.5, Number.NaN]) {
      await expect(
        NatsEventBus.connect({ url: natsTestUrl(), prefix: testPrefix('r'), replicas }),
      ).rejects.toMatchObject({
        code: 'INVALID_BUS_OPTIONS',
        message: expect.stringContaining('replicas must be an integer from 1 to 5'),
      });
    }
  });

  describe('on a single server', () => {
    let nc: NatsConnection;
    beforeAll(async () => (nc = await connect({ servers: natsTestUrl() })));
    afterAll(() => nc.close());

    it('keeps one copy by default', async () => {
      const bus = await NatsEventBus.connect({ nc, prefix: testPrefix('r') });
      const jsm = await nc.jetstreamManager();
      try {
        expect((await jsm.streams.info(bus.streamName)).config.num_replicas).toBe(1);
      } finally {
        await bus.close();
        await jsm.streams.delete(bus.streamName);
      }
    });

    it('3 replicas without a cluster: refused, naming the count, and no stream is created', async () => {
      const prefix = testPrefix('r');
      await expect(NatsEventBus.connect({ nc, prefix, replicas: 3 })).rejects.toMatchObject({
        code: 'INVALID_BUS_OPTIONS',
        message: expect.stringContaining(`stream ${eventStreamName(prefix)} with 3 replicas`),
      });
      const jsm = await nc.jetstreamManager();
      await expect(jsm.streams.info(eventStreamName(prefix))).rejects.toThrow(/stream not found/);
    });
  });

  describe('on a JetStream cluster of 3', () => {
    let cluster: Awaited<ReturnType<typeof startNatsCluster>>;
    beforeAll(async () => (cluster = await startNatsCluster(3)), 60_000);
    afterAll(() => cluster?.stop());

    it('creates the stream with 3 replicas, and scales an existing one-copy stream to 3', async () => {
      const [a, b] = cluster.servers;
      const nc = await connect({ servers: a.url });
      const jsm = await nc.jetstreamManager();
      try {
        const prefix = testPrefix('r3');
        const bus = await NatsEventBus.connect({ nc, prefix, replicas: 3 });
        const info = await jsm.streams.info(bus.streamName);
        expect(info.config.num_replicas).toBe(3);
        expect(info.cluster?.replicas).toHaveLength(2);
        await bus.publish([storedEvent(1, { streamId: 'run-1', type: 'start' })]);
        await bus.close();

        // Another server of the cluster, a stream made with one copy: the next start makes it 3.
        const other = await connect({ servers: b.url });
        try {
          const single = await NatsEventBus.connect({ nc: other, prefix: testPrefix('r1') });
          expect((await jsm.streams.info(single.streamName)).config.num_replicas).toBe(1);
          await single.close();
          const scaled = await NatsEventBus.connect({ nc: other, prefix: single.prefix, replicas: 3 });
          expect((await jsm.streams.info(scaled.streamName)).config.num_replicas).toBe(3);
          await scaled.close();
        } finally {
          await other.close();
        }
      } finally {
        await nc.close();
      }
    }, 60_000);
  });
});
