import { NatsMessaging, registrySubjects } from '@flex/bus';
import { natsTestUrl, testPrefix, waitFor } from '@flex/testing';
import { fetchCapabilitySnapshot } from './registry.client';
import { RegistrySnapshotCache } from './registry-snapshot-cache';

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

describe('RegistrySnapshotCache over NATS: a change the registry replied about is never served stale', () => {
  let registrySide: NatsMessaging;
  let processSide: NatsMessaging;
  beforeAll(async () => {
    registrySide = await NatsMessaging.connect(natsTestUrl());
    processSide = await NatsMessaging.connect(natsTestUrl());
  });
  afterAll(() => Promise.all([registrySide.drain(), processSide.drain()]));

  it('work the process hears of after the registry replied to a change sees the change (the notice came first), 20 times over', async () => {
    const prefix = testPrefix('registry_cache');
    const subjects = registrySubjects(prefix);
    let version = 0;
    let asked = 0;
    const stops = [
      await registrySide.serve(subjects.snapshot, {}, async () => {
        asked++;
        return { capabilities: [], version };
      }),
      // A change as the registry makes it: in the read model, the notice, then the reply.
      await registrySide.serve(`${prefix}.test.change`, {}, async () => {
        version++;
        await registrySide.publish(subjects.changed, { version });
        return { ok: true };
      }),
    ];
    const cache = new RegistrySnapshotCache({
      maxAgeMs: 600_000, // only the notices can make it ask again
      now: () => Date.now(),
      listen: async (onChanged) => void (await processSide.subscribe(subjects.changed, onChanged)),
    });
    const get = async () =>
      ((await cache.get(() => fetchCapabilitySnapshot(processSide, prefix, 5_000))) as { version?: number })
        .version;
    // The process hears of work over its own connection (a run's event), sent after the reply.
    const seen: Array<number | undefined> = [];
    stops.push(
      await processSide.subscribe(`${prefix}.test.work`, () => void get().then((v) => seen.push(v))),
    );
    for (let round = 0; round < 20; round++) {
      expect(await get()).toBe(version);
      expect(await get()).toBe(version); // kept: no second question
      await registrySide.request(`${prefix}.test.change`, {}, { timeoutMs: 5_000 });
      await registrySide.publish(`${prefix}.test.work`, {});
      await waitFor(async () => seen.length === round + 1, 10_000);
      expect(seen[round]).toBe(version);
    }
    expect(asked).toBe(21);
    for (const stop of stops) await stop();
  });
});
