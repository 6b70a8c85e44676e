import { natsTestUrl, testPrefix } from '@flex/testing';
import { connect, type Msg, type NatsConnection } from 'nats';
import { NatsEventBus } from './nats-event-bus';
import { eventsWildcard } from './subjects';
import { storedEvent } from './test-support/memory-event-log';
import { waitFor } from './test-support/wait-for';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** JetStream messages carry their run's trace in a W3C `traceparent` header (tracing off: the run's own). */
describe('NatsEventBus: the traceparent header', () => {
  let nc: NatsConnection;
  let bus: NatsEventBus;
  const received: Msg[] = [];

  beforeAll(async () => {
    const prefix = testPrefix('trace');
    nc = await connect({ servers: natsTestUrl() });
    nc.subscribe(eventsWildcard(prefix), { callback: (_error, msg) => received.push(msg) });
    await nc.flush();
    bus = await NatsEventBus.connect({ url: natsTestUrl(), prefix });
  });
  afterAll(async () => {
    const jsm = await nc.jetstreamManager();
    await bus.close();
    await jsm.streams.delete(bus.streamName);
    await nc.close();
  });

  it('sets the header of an event in a trace, and none on one outside any', async () => {
    const traced = storedEvent(1, { type: 'start', streamId: 'run-a' });
    traced.metadata.traceparent = TRACEPARENT;
    const untraced = storedEvent(2, { type: 'start', streamId: 'run-b' });
    await bus.publish([traced, untraced]);
    await waitFor('both messages', () => received.length === 2);
    const header = (streamId: string) =>
      received.find((m) => m.subject.includes(streamId))?.headers?.get('traceparent') ?? '';
    expect(header('run-a')).toBe(TRACEPARENT);
    expect(header('run-b')).toBe('');
  });
});
