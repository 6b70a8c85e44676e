import { InProcessMessaging } from './in-process-messaging';
import { describeMessagingBehaviour } from './test-support/messaging.behaviour';
import { RecordingLogger } from './test-support/recording-logger';

describeMessagingBehaviour('InProcessMessaging', async () => {
  const messaging = new InProcessMessaging({ logger: new RecordingLogger() });
  return {
    instance: async () => messaging,
    subject: (name) => `flex.${name}`,
    close: () => messaging.drain(),
  };
});

describe('InProcessMessaging', () => {
  it('takes turns within a queue group', async () => {
    const messaging = new InProcessMessaging();
    for (const name of ['a', 'b', 'c'])
      await messaging.serve('flex.agent.x.invoke', { queue: 'x' }, async () => name);
    const replies = [];
    for (let i = 0; i < 6; i++)
      replies.push(await messaging.request('flex.agent.x.invoke', {}, { timeoutMs: 1000 }));
    expect(replies).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    await messaging.drain();
  });

  it('gives each receiver its own copy of the payload', async () => {
    const messaging = new InProcessMessaging();
    await messaging.serve('flex.mutate', {}, async (req) => {
      (req.data as { n: number }).n++;
      return req.data;
    });
    const payload = { n: 1 };
    await expect(messaging.request('flex.mutate', payload, { timeoutMs: 1000 })).resolves.toEqual({ n: 2 });
    expect(payload).toEqual({ n: 1 });
    await messaging.drain();
  });

  it('refuses subjects NATS would refuse', async () => {
    const messaging = new InProcessMessaging();
    await expect(messaging.subscribe('flex..x', () => undefined)).rejects.toMatchObject({
      code: 'INVALID_BUS_OPTIONS',
    });
    await expect(messaging.subscribe('flex.>.x', () => undefined)).rejects.toMatchObject({
      code: 'INVALID_BUS_OPTIONS',
    });
    await expect(messaging.subscribe('flex.a*', () => undefined)).rejects.toMatchObject({
      code: 'INVALID_BUS_OPTIONS',
    });
    await expect(messaging.subscribe('flex.*.>', () => undefined)).resolves.toBeInstanceOf(Function);
    await messaging.drain();
  });
});
