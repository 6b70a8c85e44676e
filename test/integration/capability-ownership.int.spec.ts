import { NatsMessaging, registryAgentSubject, registrySubjects } from '@flex/bus';
import { capabilityStreamId } from '@flex/contracts';
import { principalId } from '@flex/gateway';
import { FlexClient, natsTestUrl, testPrefix, waitFor } from '@flex/testing';
import type { RegistrySnapshot } from '../../services/registry/src/capability/capability.view';
import { startRegistryHarness, type RegistryHarness } from './registry-harness';

/**
 * Capability ownership on real Postgres and NATS: over HTTP (the token's principal owns what it
 * registers) and over NATS (the subject's identity does), refusals that change nothing, admin
 * assignment, and per-identity rate limits with Retry-After.
 */
const quiet = { warn: () => undefined, error: () => undefined };
const ALICE = 'alice-agent-token';
const BOB = 'bob-agent-token';
const ADMIN = 'the-admin-token';
const CLIENT = 'a-client-token';
const TOKENS = `${ALICE}:agent,${BOB}:agent,${ADMIN}:admin,${CLIENT}:client`;

const registration = (capabilityId: string, version = '1.0.0') => ({
  capabilityId,
  version,
  displayName: 'Knob setter',
  summary: 'Chooses plan knobs from a tone.',
  inputContract: ['toneOfVoice'],
  outputContract: ['planKnobs'],
  heartbeat: { intervalSeconds: 10 },
});

describe('capability ownership', () => {
  const prefix = testPrefix('ownership');
  let h: RegistryHarness;
  let nats: NatsMessaging;
  const as = (token: string) => new FlexClient(h.gatewayUrl ?? '', token);
  const httpRegister = (token: string, capabilityId: string, instanceId = 'i1', version?: string) =>
    as(token).json('POST', '/api/v1/flex/capabilities/register', {
      registration: registration(capabilityId, version),
      instanceId,
    });
  const natsAsk = (verb: 'register' | 'deregister', identity: string, capabilityId: string, body: unknown) =>
    nats.request(registryAgentSubject(prefix, verb, identity, capabilityId), body, { timeoutMs: 5_000 });
  const view = async (capabilityId: string) =>
    (
      await nats.request<RegistrySnapshot>(registrySubjects(prefix).snapshot, {}, { timeoutMs: 5_000 })
    ).capabilities.find((c) => c.registration.capabilityId === capabilityId);
  const events = async (capabilityId: string) =>
    (await h.runtime.store.readStream(capabilityStreamId(capabilityId))).map((e) => e.type);

  beforeAll(async () => {
    h = await startRegistryHarness('ownership', prefix, { gateway: true, tokens: TOKENS });
    nats = await NatsMessaging.connect(natsTestUrl(), { logger: quiet });
  });
  afterAll(async () => {
    await nats?.drain();
    await h?.close();
  });

  it('over HTTP: the first token to register owns the capability; another is refused 403 and changes nothing', async () => {
    expect((await httpRegister(ALICE, 'own.http')).status).toBe(201);
    const before = await events('own.http');
    const refused = await httpRegister(BOB, 'own.http', 'i2', '9.9.9');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({
      code: 'capability_owned',
      message: expect.stringContaining('own.http'),
      details: { capabilityId: 'own.http', path: 'registration.capabilityId' },
    });
    // Nothing about the owner leaks: neither the token nor its principal id.
    expect(JSON.stringify(refused.body)).not.toContain(principalId(ALICE));
    expect(JSON.stringify(refused.body)).not.toContain(ALICE);
    expect(await events('own.http')).toEqual(before);
    expect(await view('own.http')).toMatchObject({ activeInstances: 1, registration: { version: '1.0.0' } });
    // The owner still registers (a second instance, a new version).
    h.clock.advance(1_000);
    expect((await httpRegister(ALICE, 'own.http', 'i3', '1.1.0')).status).toBe(201);
    expect(await view('own.http')).toMatchObject({ activeInstances: 2, registration: { version: '1.1.0' } });
  });

  it("over NATS: the subject's identity owns; another identity's registration, heartbeat and deregistration change nothing", async () => {
    await natsAsk('register', 'writers', 'own.nats', {
      registration: registration('own.nats'),
      instanceId: 'w1',
    });
    const before = await events('own.nats');
    const lastSeen = (await view('own.nats'))?.lastSeenAt;
    await expect(
      natsAsk('register', 'mallory', 'own.nats', {
        registration: registration('own.nats'),
        instanceId: 'm1',
      }),
    ).rejects.toMatchObject({ code: 'capability_owned', retryable: false });
    await expect(
      natsAsk('deregister', 'mallory', 'own.nats', { capabilityId: 'own.nats', instanceId: 'w1' }),
    ).rejects.toMatchObject({ code: 'capability_owned' });
    // Mallory's heartbeat is dropped: the owner's instance is not kept alive by someone else.
    const beat = (identity: string, capabilityId: string) => ({
      subject: registryAgentSubject(prefix, 'heartbeat', identity, 'own.nats'),
      data: { capabilityId, instanceId: 'w1' },
      headers: {},
    });
    h.clock.advance(5_000);
    await h.registry.heartbeat(beat('mallory', 'own.nats'));
    expect((await view('own.nats'))?.lastSeenAt).toBe(lastSeen);
    // A body naming another capability than the subject (which the permissions pin) is refused.
    await expect(h.registry.heartbeat(beat('writers', 'other.cap'))).rejects.toMatchObject({
      code: 'invalid_registration',
    });
    // The owner's own heartbeat, sent after, is the one that lands.
    h.clock.advance(1_000);
    await nats.publish(registryAgentSubject(prefix, 'heartbeat', 'writers', 'own.nats'), {
      capabilityId: 'own.nats',
      instanceId: 'w1',
    });
    const seen = await waitFor(async () => {
      const v = await view('own.nats');
      return v?.lastSeenAt !== lastSeen ? v?.lastSeenAt : undefined;
    }, 5_000);
    expect(seen).toBe(h.clock.now().toISOString());
    expect(await events('own.nats')).toEqual(before);
    expect(await view('own.nats')).toMatchObject({ status: 'active', activeInstances: 1 });
  });

  it('a subject naming another capability than the body is refused with the path', async () => {
    await expect(
      natsAsk('register', 'writers', 'decoy.cap', {
        registration: registration('own.nats'),
        instanceId: 'w9',
      }),
    ).rejects.toMatchObject({
      code: 'invalid_registration',
      details: { issues: [expect.objectContaining({ path: 'capabilityId', code: 'subject_mismatch' })] },
    });
  });

  it('an admin assigns an owner: the old owner is refused, the new one registers; a capability can be reserved', async () => {
    await httpRegister(ALICE, 'own.moved');
    const assign = (token: string, body: unknown) =>
      as(token).json('POST', '/api/v1/flex/admin/capabilities/owner', body);
    const moved = await assign(ADMIN, { capabilityId: 'own.moved', owner: principalId(BOB) });
    expect(moved).toEqual({
      status: 200,
      body: {
        ok: true,
        capabilityId: 'own.moved',
        owner: principalId(BOB),
        previousOwner: principalId(ALICE),
      },
    });
    expect((await httpRegister(ALICE, 'own.moved', 'i2')).status).toBe(403);
    expect((await httpRegister(BOB, 'own.moved', 'i2')).status).toBe(201);
    expect(await events('own.moved')).toEqual([
      'capability_registered',
      'capability_owner_assigned',
      'capability_registered',
    ]);

    expect((await assign(ADMIN, { capabilityId: 'own.reserved', owner: 'writers' })).status).toBe(200);
    expect((await httpRegister(ALICE, 'own.reserved')).status).toBe(403);
    await natsAsk('register', 'writers', 'own.reserved', { registration: registration('own.reserved') });
    expect(await view('own.reserved')).toMatchObject({ status: 'active' });
  });

  it('only an admin assigns, and a bad assignment is a 400 naming the path that changes nothing', async () => {
    for (const token of [ALICE, CLIENT])
      expect((await as(token).json('POST', '/api/v1/flex/admin/capabilities/owner', {})).status).toBe(403);
    const bad = await as(ADMIN).json('POST', '/api/v1/flex/admin/capabilities/owner', {
      capabilityId: 'own.bad',
      owner: 'has spaces',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('owner'),
    });
    expect(await events('own.bad')).toEqual([]);
  });
});

describe('registration rate limits', () => {
  const prefix = testPrefix('reg_rate');
  let h: RegistryHarness;
  let nats: NatsMessaging;

  beforeAll(async () => {
    h = await startRegistryHarness('reg_rate', prefix, {
      gateway: true,
      tokens: TOKENS,
      registrationRate: { perMinute: 6, burst: 3 },
    });
    nats = await NatsMessaging.connect(natsTestUrl(), { logger: quiet });
  });
  afterAll(async () => {
    await nats?.drain();
    await h?.close();
  });

  const post = (token: string, capabilityId: string) =>
    fetch(`${h.gatewayUrl ?? ''}/api/v1/flex/capabilities/register`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ registration: registration(capabilityId), instanceId: 'i1' }),
    });

  it('over HTTP: a burst, then 429 with Retry-After until the bucket refills; other identities are not held up', async () => {
    for (let i = 0; i < 3; i++) expect((await post(ALICE, `rate.http.${i}`)).status).toBe(201);
    const limited = await post(ALICE, 'rate.http.3');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBe(10);
    expect(await limited.json()).toEqual({
      error: { code: 'rate_limited', message: expect.any(String), details: { retryAfterMs: 10_000 } },
    });
    expect(await h.runtime.store.readStream(capabilityStreamId('rate.http.3'))).toEqual([]);
    expect((await post(BOB, 'rate.http.bob')).status).toBe(201);
    h.clock.advance(10_000);
    expect((await post(ALICE, 'rate.http.3')).status).toBe(201);
  });

  it('over NATS: the identity is refused with a retryable rate_limited and the delay', async () => {
    const ask = (n: number) =>
      nats.request(
        registryAgentSubject(prefix, 'register', 'busy', `rate.nats.${n}`),
        { registration: registration(`rate.nats.${n}`) },
        { timeoutMs: 5_000 },
      );
    for (let i = 0; i < 3; i++) await ask(i);
    await expect(ask(3)).rejects.toMatchObject({
      code: 'rate_limited',
      retryable: true,
      details: { retryAfterMs: 10_000 },
    });
  });
});
