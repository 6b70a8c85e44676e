import {
  eventStreamName,
  eventSubject,
  natsConnectionOptions,
  NatsEventBus,
  type NatsMessaging,
} from '@flex/bus';
import type { StoredEvent } from '@flex/event-store';
import { testPrefix, waitFor } from '@flex/testing';
import { connect, headers, type NatsConnection } from 'nats';
import { startAuthedNats, type AuthedNats } from './authed-nats';

/**
 * The event stream under the generated permissions: each service publishes only the event types
 * it appends and consumes only through its own durable consumer; an agent identity (a rogue on the
 * network) can neither forge events onto the stream nor read it, nor the other identities' inboxes.
 */
const prefix = testPrefix('nats_events');
const stream = eventStreamName(prefix);

const event = (type: string, position: number): StoredEvent => ({
  id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
  streamId: 'run-r1',
  version: position,
  position,
  type,
  payload: { n: position },
  metadata: { correlationId: 'c1' },
  timestamp: new Date().toISOString(),
});

describe('the event stream under generated permissions', () => {
  let nats: AuthedNats;
  const buses: NatsEventBus[] = [];
  const raw: NatsConnection[] = [];
  const opened: NatsMessaging[] = [];
  const bus = async (identity: string) => {
    const b = await NatsEventBus.connect({ url: nats.server.url, auth: nats.auth(identity), prefix });
    buses.push(b);
    return b;
  };
  const rawAs = async (identity: string) => {
    const nc = await connect({
      ...natsConnectionOptions(nats.server.url, identity, nats.auth(identity)),
      reconnect: false,
    });
    raw.push(nc);
    return nc;
  };
  const storedCount = async () => {
    const ops = await rawAs('ops');
    return (await (await ops.jetstreamManager()).streams.info(stream)).state.messages;
  };

  beforeAll(async () => {
    nats = await startAuthedNats(prefix);
  });
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await Promise.all(opened.map((m) => m.drain()));
    await Promise.all(raw.map((nc) => nc.close()));
    await nats?.stop();
  });

  it('a service publishes its own events, and its peer consumes them through its own durable consumer', async () => {
    const gateway = await bus('gateway');
    await gateway.publish([event('start', 1)]);
    const planner = await bus('planner');
    const seen: string[] = [];
    const consumer = await planner.consume({ durable: 'planner', types: ['start'] }, async (d) => {
      seen.push(d.event.type);
    });
    await waitFor(async () => seen.length === 1, 10_000);
    await consumer.stop();
    expect(seen).toEqual(['start']);
    expect(await storedCount()).toBe(1);
  });

  it('a service may not publish another service’s event, nor consume through another’s durable consumer', async () => {
    const planner = await bus('planner');
    await expect(planner.publish([event('complete', 2)])).rejects.toMatchObject({ code: 'PUBLISH_FAILED' });
    await expect(planner.consume({ durable: 'executor' }, async () => undefined)).rejects.toThrow(
      /ermission/,
    );
    expect(await storedCount()).toBe(1);
  });

  it('an agent identity can neither forge events onto the stream nor read it', async () => {
    const rogue = await rawAs('rogue');
    const js = rogue.jetstream();
    const forged = eventSubject(prefix, 'run-r1', 'complete');
    const h = headers();
    h.set('Nats-Msg-Id', 'forged-1');
    await expect(js.publish(forged, new TextEncoder().encode('{}'), { headers: h })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    // A plain publish is refused by the server too (it says so on the connection's status).
    const refusals: string[] = [];
    void (async () => {
      for await (const status of rogue.status())
        if (status.type === 'error') refusals.push(String(status.data));
    })();
    rogue.publish(forged, new TextEncoder().encode('{}'));
    await rogue.flush();
    await waitFor(async () => refusals.length > 0, 5_000);
    expect(await storedCount()).toBe(1);

    await expect(rogue.jetstreamManager()).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    const jsm = await rogue.jetstreamManager({ checkAPI: false });
    await expect(jsm.streams.info(stream)).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    await expect(jsm.streams.getMessage(stream, { seq: 1 })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    await expect(jsm.consumers.add(stream, { ack_policy: 'explicit' as never })).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    await expect(jsm.streams.delete(stream)).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });

    const messaging = await nats.connect('rogue');
    opened.push(messaging);
    for (const subject of [`${prefix}.events.>`, '>', '_INBOX.gateway.>', '$JS.ACK.>'])
      await expect(messaging.subscribe(subject, () => undefined)).rejects.toMatchObject({
        code: 'PERMISSION_DENIED',
      });
  });

  it('a service may not change or delete the stream: that is the operators’ identity', async () => {
    const executor = await rawAs('executor');
    const jsm = await executor.jetstreamManager();
    await expect(
      jsm.streams.update(stream, { subjects: ['_INBOX.>', `${prefix}.events.>`] }),
    ).rejects.toMatchObject({
      code: 'PERMISSIONS_VIOLATION',
    });
    await expect(jsm.streams.delete(stream)).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    expect(await storedCount()).toBe(1);
  });
});
