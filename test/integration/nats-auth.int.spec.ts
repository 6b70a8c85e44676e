import { defineAgent, silentLogger, startAgent, type AgentHandle, type AgentResult } from '@flex/agent-sdk';
import {
  agentInvokeSubject,
  natsConnectionOptions,
  registryAgentSubject,
  type NatsMessaging,
} from '@flex/bus';
import { testPrefix } from '@flex/testing';
import { connect } from 'nats';
import { startRegistryHarness, type RegistryHarness } from './registry-harness';
import { startAuthedNats, type AuthedNats } from './authed-nats';

/**
 * NATS as the shipped configurations run it (generated permissions, passwords and NKeys, TLS),
 * tried by a rogue: connections without the right credentials, an agent identity serving or
 * registering another's capability, speaking as another identity. The legitimate identities
 * still work: the registry, an agent, the executor invoking it.
 */
const prefix = testPrefix('nats_auth');

const writerAgent = (handle: (instance: string) => void) =>
  defineAgent({
    registration: {
      capabilityId: 'writer.en',
      version: '1.0.0',
      displayName: 'Knob setter',
      summary: 'Chooses plan knobs.',
      inputContract: ['toneOfVoice'],
      outputContract: ['planKnobs'],
    },
    handle: async (invocation, ctx) => {
      handle(ctx.instanceId);
      return { planKnobs: { variantCount: 1, ctaFocus: invocation.idempotencyKey } };
    },
  });

const invocation = (i: number) => ({
  runId: 'run-1',
  nodeId: `n${i}`,
  attempt: 1,
  idempotencyKey: `run-1:n${i}:1`,
  capabilityId: 'writer.en',
  inputs: { toneOfVoice: 'friendly' },
  outputFacets: ['planKnobs'],
  context: { objective: 'auth' },
});

describe('authenticated NATS (generated permissions, TLS)', () => {
  let nats: AuthedNats;
  let registry: RegistryHarness;
  const opened: NatsMessaging[] = [];
  const handles: AgentHandle[] = [];
  const as = async (name: string) => {
    const m = await nats.connect(name);
    opened.push(m);
    return m;
  };
  const served: string[] = [];

  beforeAll(async () => {
    nats = await startAuthedNats(prefix);
    registry = await startRegistryHarness('nats_auth', prefix, { env: nats.env('registry') });
    handles.push(
      await startAgent(
        writerAgent((id) => served.push(id)),
        {
          messaging: await as('writers'),
          prefix,
          identity: 'writers',
          instanceId: 'owner-1',
          logger: silentLogger,
        },
      ),
    );
    await handles[0].ready;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(handles.map((h) => h.stop('test_done')));
    await Promise.all(opened.map((m) => m.drain()));
    await registry?.close();
    await nats?.stop();
  });

  it('refuses a connection without credentials, with a wrong password, or that does not trust the server', async () => {
    const tls = { caFile: nats.caFile };
    const attempt = (options: Parameters<typeof connect>[0]) =>
      connect({ ...options, servers: nats.server.url, reconnect: false, timeout: 3_000 });
    await expect(attempt({ tls })).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
    await expect(attempt({ tls, user: 'executor', pass: 'not-the-password' })).rejects.toMatchObject({
      code: 'AUTHORIZATION_VIOLATION',
    });
    await expect(
      attempt({ user: 'executor', pass: nats.env('executor').FLEX_NATS_PASSWORD }),
    ).rejects.toThrow();
    const legit = await connect({
      ...natsConnectionOptions(nats.server.url, 't', nats.auth('executor')),
      reconnect: false,
    });
    await legit.close();
  });

  it('an agent identity cannot serve, nor join the queue group of, a capability it was not given', async () => {
    const rogue = await as('rogue');
    const subject = agentInvokeSubject(prefix, 'writer.en');
    await expect(rogue.serve(subject, { queue: 'writer.en' }, async () => ({}))).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      retryable: false,
    });
    await expect(rogue.subscribe(subject, () => undefined)).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    await expect(rogue.subscribe(`${prefix}.agent.>`, () => undefined)).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    // Nor read others' replies: its inboxes are its own.
    await expect(rogue.subscribe('_INBOX.>', () => undefined)).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
    });
    // The SDK says so at start, instead of serving nothing.
    await expect(
      startAgent(
        writerAgent(() => undefined),
        { messaging: rogue, prefix, identity: 'rogue', logger: silentLogger },
      ),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    // Every invocation reaches the owner's instance.
    const executor = await as('executor');
    const before = served.length;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        executor.request<AgentResult>(subject, invocation(i), { timeoutMs: 10_000 }),
      ),
    );
    expect(results.map((r) => (r.output.planKnobs as { ctaFocus: string }).ctaFocus)).toEqual(
      Array.from({ length: 20 }, (_, i) => `run-1:n${i}:1`),
    );
    expect(served.slice(before)).toEqual(Array.from({ length: 20 }, () => 'owner-1'));
    // The server, not only the client library, refused it.
    const refused = nats.server
      .errors()
      .filter((l) => l.includes('Subscription Violation') && l.includes('"rogue"'));
    expect(refused.some((l) => l.includes(subject))).toBe(true);
  });

  it('an agent registers, heartbeats and deregisters only its capabilities, and only under its own name', async () => {
    const rogue = await as('rogue');
    const body = (capabilityId: string) => ({
      registration: {
        capabilityId,
        version: '6.6.6',
        displayName: 'Impostor',
        summary: 'Takes traffic.',
        inputContract: ['toneOfVoice'],
        outputContract: ['planKnobs'],
      },
      instanceId: 'r1',
    });
    for (const [identity, capabilityId] of [
      ['rogue', 'writer.en'],
      ['writers', 'writer.en'],
      ['writers', 'rogue.tool'],
    ])
      await expect(
        rogue.request(registryAgentSubject(prefix, 'register', identity, capabilityId), body(capabilityId), {
          timeoutMs: 5_000,
        }),
      ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(
      rogue.request(
        registryAgentSubject(prefix, 'deregister', 'writers', 'writer.en'),
        { capabilityId: 'writer.en' },
        {
          timeoutMs: 5_000,
        },
      ),
    ).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    // Its own capability, under its own name, goes through.
    await expect(
      rogue.request(registryAgentSubject(prefix, 'register', 'rogue', 'rogue.tool'), body('rogue.tool'), {
        timeoutMs: 5_000,
      }),
    ).resolves.toMatchObject({ ok: true, capabilityId: 'rogue.tool' });
    expect(
      (await registry.registry.snapshot()).capabilities.find(
        (c) => c.registration.capabilityId === 'writer.en',
      ),
    ).toMatchObject({ registration: { version: '1.0.0' }, activeInstances: 1 });
  });

  it('two identities the table both allows a capability: the first to register owns it (NKey identity refused)', async () => {
    const copycat = await as('copycat');
    await expect(
      copycat.request(
        registryAgentSubject(prefix, 'register', 'copycat', 'writer.en'),
        {
          registration: {
            capabilityId: 'writer.en',
            version: '2.0.0',
            displayName: 'Copycat',
            summary: 'Same id, other team.',
            inputContract: ['toneOfVoice'],
            outputContract: ['planKnobs'],
          },
          instanceId: 'c1',
        },
        { timeoutMs: 5_000 },
      ),
    ).rejects.toMatchObject({ code: 'capability_owned', details: { capabilityId: 'writer.en' } });
  });
});
