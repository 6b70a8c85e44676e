import { natsTestUrl, startNats, testPrefix, waitFor } from '@flex/testing';
import { connect, headers } from 'nats';
import { NatsMessaging } from './nats-messaging';
import { isUnreachable } from './unreachable';
import { describeMessagingBehaviour } from './test-support/messaging.behaviour';
import { RecordingLogger } from './test-support/recording-logger';

async function harness() {
  const prefix = testPrefix('messaging');
  const all: NatsMessaging[] = [];
  return {
    prefix,
    instance: async () => {
      const messaging = await NatsMessaging.connect(natsTestUrl(), { logger: new RecordingLogger() });
      all.push(messaging);
      return messaging;
    },
    subject: (name: string) => `${prefix}.${name}`,
    close: async () => void (await Promise.all(all.map((m) => m.drain()))),
  };
}

describeMessagingBehaviour('NatsMessaging', harness);

describe('NatsMessaging on the wire', () => {
  it('speaks plain JSON that any NATS client can use, errors flagged by a header', async () => {
    const h = await harness();
    const server = await h.instance();
    await server.serve(h.subject('plain'), { queue: 'q' }, async (req) => {
      if ((req.data as { fail?: boolean }).fail)
        throw Object.assign(new Error('no'), { code: 'refused', retryable: false });
      return { hello: (req.data as { name: string }).name };
    });
    const raw = await connect({ servers: natsTestUrl() });
    const ok = await raw.request(h.subject('plain'), new TextEncoder().encode('{"name":"agent"}'), {
      timeout: 2000,
    });
    expect(ok.headers?.has('Flex-Error')).toBeFalsy();
    expect(JSON.parse(new TextDecoder().decode(ok.data))).toEqual({ hello: 'agent' });
    const failed = await raw.request(h.subject('plain'), new TextEncoder().encode('{"fail":true}'), {
      timeout: 2000,
      headers: headers(),
    });
    expect(failed.headers?.get('Flex-Error')).toBe('refused');
    expect(JSON.parse(new TextDecoder().decode(failed.data))).toEqual({
      code: 'refused',
      message: 'no',
      retryable: false,
    });
    const garbled = await raw.request(h.subject('plain'), new TextEncoder().encode('{oops'), {
      timeout: 2000,
    });
    expect(JSON.parse(new TextDecoder().decode(garbled.data))).toMatchObject({
      code: 'MALFORMED_MESSAGE',
      retryable: false,
    });
    await raw.close();
    await h.close();
  });

  it('leaves a connection it was given open on drain', async () => {
    const nc = await connect({ servers: natsTestUrl() });
    const messaging = new NatsMessaging(nc);
    await messaging.drain();
    expect(nc.isClosed()).toBe(false);
    await nc.close();
  });
});

describe('NatsMessaging when NATS goes away', () => {
  it('a request while the connection is down is BUS_DISCONNECTED (unreachable), nobody serving is NO_RESPONDERS; both work again after a restart', async () => {
    const server = await startNats();
    const asker = await NatsMessaging.connect(server.url, { logger: new RecordingLogger() });
    const agent = await NatsMessaging.connect(server.url, { logger: new RecordingLogger() });
    try {
      await agent.serve('agent.echo', { queue: 'echo' }, async (req) => req.data);
      await expect(asker.request('nobody.here', {}, { timeoutMs: 1_000 })).rejects.toMatchObject({
        code: 'NO_RESPONDERS',
        retryable: true,
      });
      let started = false;
      await agent.serve('agent.slow', {}, async () => {
        started = true;
        return new Promise((resolve) => setTimeout(() => resolve({}), 3_000));
      });
      const asked = Date.now();
      const inFlight = asker.request('agent.slow', {}, { timeoutMs: 60_000 }).catch((e: unknown) => e);
      await waitFor(async () => started, 10_000);
      await server.crash();
      // Failed as soon as the connection dropped (its reply would be lost), not after the 60 s timeout.
      expect(await inFlight).toMatchObject({ code: 'BUS_DISCONNECTED', retryable: true });
      expect(Date.now() - asked).toBeLessThan(20_000);
      const down = await asker.request('agent.echo', { n: 1 }, { timeoutMs: 500 }).catch((e: unknown) => e);
      expect(down).toMatchObject({ code: 'BUS_DISCONNECTED', retryable: true });
      expect(isUnreachable(down)).toBe(true);
      await server.revive();
      await waitFor(
        async () =>
          (await asker.request('agent.echo', { n: 2 }, { timeoutMs: 500 }).catch(() => null)) !== null,
        10_000,
        () => server.log(),
      );
      await expect(asker.request('agent.echo', { n: 3 }, { timeoutMs: 1_000 })).resolves.toEqual({ n: 3 });
    } finally {
      await Promise.all([asker.drain(), agent.drain()]);
      await server.stop();
    }
  });

  it('a request that times out while connected is a TIMEOUT (the responder may have failed), not unreachable', async () => {
    const messaging = await NatsMessaging.connect(natsTestUrl(), { logger: new RecordingLogger() });
    const subject = `${testPrefix('hang')}.hang`;
    await messaging.serve(subject, {}, () => new Promise((resolve) => setTimeout(() => resolve({}), 1_000)));
    const hung = await messaging.request(subject, {}, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(hung).toMatchObject({ code: 'TIMEOUT' });
    expect(isUnreachable(hung)).toBe(false);
    await messaging.drain();
  });
});
