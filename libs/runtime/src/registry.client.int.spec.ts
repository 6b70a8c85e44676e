import { NatsMessaging, registrySubjects } from '@flex/bus';
import { natsTestUrl, testPrefix } from '@flex/testing';
import { fetchCapabilitySnapshot } from './registry.client';

describe('fetchCapabilitySnapshot over NATS: a registry nobody serves yet is waited for within the budget', () => {
  let messaging: NatsMessaging;
  beforeAll(async () => (messaging = await NatsMessaging.connect(natsTestUrl())));
  afterAll(() => messaging.drain());

  it('asks again while nobody serves the snapshot subject, and answers once a registry does', async () => {
    const prefix = testPrefix('registry_client');
    let stop: (() => Promise<void>) | undefined;
    const serving = new Promise<void>((resolve) =>
      setTimeout(async () => {
        stop = await messaging.serve(registrySubjects(prefix).snapshot, {}, async () => ({
          capabilities: [],
        }));
        resolve();
      }, 700),
    );
    const started = Date.now();
    await expect(fetchCapabilitySnapshot(messaging, prefix, 1_000, 10_000)).resolves.toEqual({
      capabilities: [],
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    await serving;
    await stop?.();
  });

  it('with no budget, or once it is spent, says NO_RESPONDERS', async () => {
    const prefix = testPrefix('registry_client');
    await expect(fetchCapabilitySnapshot(messaging, prefix, 1_000)).rejects.toMatchObject({
      code: 'NO_RESPONDERS',
    });
    const started = Date.now();
    await expect(fetchCapabilitySnapshot(messaging, prefix, 1_000, 1_200)).rejects.toMatchObject({
      code: 'NO_RESPONDERS',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_200);
  });

  it('a registry that answers with an error is not waited for: the error is thrown at once', async () => {
    const prefix = testPrefix('registry_client');
    const stop = await messaging.serve(registrySubjects(prefix).snapshot, {}, async () => {
      throw Object.assign(new Error('read model unavailable'), { code: 'UNAVAILABLE', retryable: true });
    });
    const started = Date.now();
    await expect(fetchCapabilitySnapshot(messaging, prefix, 1_000, 30_000)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    await stop();
  });
});
