import { defineAgent, silentLogger, startAgent, type AgentHandle, type AgentResult } from '@flex/agent-sdk';
import {
  agentInvokeSubject,
  NatsMessaging,
  registryAgentSubject,
  registrySubjects,
  type Messaging,
} from '@flex/bus';
import { principalId } from '@flex/gateway';
import { capabilityStreamId } from '@flex/contracts';
import { activeRegistrations, fetchCapabilitySnapshot } from '@flex/runtime';
import { FlexClient, natsTestUrl, testPrefix, waitFor } from '@flex/testing';
import type { RegistrySnapshot } from '../../services/registry/src/capability/capability.view';
import { findStaleInstances } from '../../services/registry/src/capability/liveness.repository';
import { sql } from 'kysely';
import { AGENT_TOKEN, CLIENT_TOKEN, startRegistryHarness, type RegistryHarness } from './registry-harness';

const prefix = testPrefix('registry_int');
/** The agent token's principal: registering over NATS as it is registering over HTTP with the token. */
const AGENT = principalId(AGENT_TOKEN);
const capabilityOf = (body: unknown) =>
  ((body as { registration?: { capabilityId?: string } }).registration?.capabilityId ?? '-') || '-';
const quiet = { warn: () => undefined, error: () => undefined };

const registration = (capabilityId: string, extra: Record<string, unknown> = {}) => ({
  capabilityId,
  version: '1.0.0',
  displayName: 'Knob setter',
  summary: 'Chooses plan knobs from a tone.',
  inputContract: ['toneOfVoice'],
  outputContract: ['planKnobs'],
  heartbeat: { intervalSeconds: 10 },
  ...extra,
});

describe('the registry on real Postgres and NATS', () => {
  let h: RegistryHarness;
  let nats: NatsMessaging;
  let agentClient: FlexClient;
  let clientClient: FlexClient;
  const snapshot = () =>
    nats.request<RegistrySnapshot>(registrySubjects(prefix).snapshot, {}, { timeoutMs: 5_000 });
  const view = async (capabilityId: string) =>
    (await snapshot()).capabilities.find((c) => c.registration.capabilityId === capabilityId);
  const register = (body: unknown) =>
    nats.request<{ ok: true; registeredAt: string }>(
      registryAgentSubject(prefix, 'register', AGENT, capabilityOf(body)),
      body,
      { timeoutMs: 5_000 },
    );
  const beat = (capabilityId: string, instanceId: string) =>
    nats.publish(registryAgentSubject(prefix, 'heartbeat', AGENT, capabilityId), {
      capabilityId,
      instanceId,
      at: new Date().toISOString(),
    });

  beforeAll(async () => {
    h = await startRegistryHarness('registry_int', prefix, { gateway: true });
    nats = await NatsMessaging.connect(natsTestUrl(), { logger: quiet });
    agentClient = new FlexClient(h.gatewayUrl as string, AGENT_TOKEN);
    clientClient = new FlexClient(h.gatewayUrl as string, CLIENT_TOKEN);
  });
  afterAll(async () => {
    await nats?.drain();
    await h?.close();
  });

  describe('rejects invalid registrations with the path and the reason, on both transports, and changes nothing', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      [
        'an unknown facet',
        { inputContract: ['toneOfVoice', 'crystalBall'] },
        'inputContract[1]',
        'unknown_facet',
      ],
      [
        'an input-only facet as output',
        { outputContract: ['objectiveBrief'] },
        'outputContract[0]',
        'direction_mismatch',
      ],
      [
        'an output-only facet as input',
        { inputContract: ['qaFindings'] },
        'inputContract[0]',
        'direction_mismatch',
      ],
      ['an empty output contract', { outputContract: [] }, 'outputContract', 'missing_output_contract'],
      [
        'a missing output contract',
        { outputContract: undefined },
        'outputContract',
        'missing_output_contract',
      ],
      ['a bad capability id', { capabilityId: 'has spaces' }, 'capabilityId', 'invalid_registration'],
    ];

    it.each(cases)('over NATS: %s', async (_name, change, path, code) => {
      const capabilityId = `nats.rejected.${code}`;
      const error = await register({
        registration: { ...registration(capabilityId), ...change },
        instanceId: 'i1',
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'invalid_registration',
        retryable: false,
        details: { issues: expect.arrayContaining([expect.objectContaining({ path, code })]) },
      });
      expect((error as Error).message).toContain(`${path}: `);
      expect(await view(capabilityId)).toBeUndefined();
    });

    it.each(cases)('over HTTP: %s → 400 naming the path', async (_name, change, path, code) => {
      const capabilityId = `http.rejected.${code}`;
      const res = await agentClient.json('POST', '/api/v1/flex/capabilities/register', {
        registration: { ...registration(capabilityId), ...change },
        instanceId: 'i1',
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'invalid_registration',
        message: expect.stringContaining(`${path}: `),
        details: { issues: expect.arrayContaining([expect.objectContaining({ path, code })]) },
      });
      expect(await view(capabilityId)).toBeUndefined();
    });

    it.each([
      ['a number', 0, 'instanceId'],
      ['an empty string', '', 'instanceId'],
      ['an object', { a: 1 }, 'instanceId'],
    ])(
      'over HTTP: an instanceId that is %s → 400, never the default instance',
      async (_name, instanceId, path) => {
        const capabilityId = `http.rejected.instance.${typeof instanceId}${instanceId === '' ? '.empty' : ''}`;
        const res = await agentClient.json('POST', '/api/v1/flex/capabilities/register', {
          registration: registration(capabilityId),
          instanceId,
        });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({
          code: 'invalid_registration',
          details: { issues: [expect.objectContaining({ path, code: 'invalid_registration' })] },
        });
        expect(await view(capabilityId)).toBeUndefined();
      },
    );

    it('over NATS: a member beside registration and instanceId is refused by name', async () => {
      const capabilityId = 'nats.rejected.extra.member';
      const error = await register({
        registration: registration(capabilityId),
        instanceId: 'i1',
        owner: 'x',
      }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'invalid_registration',
        details: { issues: [expect.objectContaining({ path: 'owner' })] },
      });
      expect(await view(capabilityId)).toBeUndefined();
    });

    it('over HTTP: only the agent role may register', async () => {
      const res = await clientClient.json(
        'POST',
        '/api/v1/flex/capabilities/register',
        registration('http.client.denied'),
      );
      expect(res.status).toBe(403);
    });
  });

  it('upserts by capability id: registeredAt stays, lastSeenAt follows the clock, one event per real change', async () => {
    const first = await register({ registration: registration('upsert.knobs'), instanceId: 'u1' });
    h.clock.advance(5_000);
    const again = await agentClient.json('POST', '/api/v1/flex/capabilities/register', {
      registration: registration('upsert.knobs'),
      instanceId: 'u1',
    });
    expect(again.status).toBeLessThan(300);
    expect(again.body.registeredAt).toBe(first.registeredAt);
    const v = await view('upsert.knobs');
    expect(v).toMatchObject({
      status: 'active',
      activeInstances: 1,
      registeredAt: first.registeredAt,
      lastSeenAt: h.clock.now().toISOString(),
    });
    h.clock.advance(1_000);
    await register({ registration: registration('upsert.knobs', { version: '1.1.0' }), instanceId: 'u1' });
    const events = await h.runtime.store.readStream(capabilityStreamId('upsert.knobs'));
    expect(events.map((e) => e.type)).toEqual(['capability_registered', 'capability_registered']);
    expect((events[1].payload as { registeredAt: string }).registeredAt).toBe(first.registeredAt);
    expect((await view('upsert.knobs'))?.registration.version).toBe('1.1.0');
    // GET /capabilities is the same read model, with the instances listed.
    const listed = await clientClient.json('GET', '/api/v1/flex/capabilities');
    expect(
      listed.body.capabilities.find(
        (c: { registration: { capabilityId: string } }) => c.registration.capabilityId === 'upsert.knobs',
      ),
    ).toMatchObject({
      registeredAt: first.registeredAt,
      instances: [expect.objectContaining({ instanceId: 'u1', status: 'active' })],
    });
  });

  it('turns a silent instance inactive after its timeout (3 × interval) and active again on its next heartbeat', async () => {
    await register({ registration: registration('expiry.knobs'), instanceId: 'quiet' });
    await register({ registration: registration('expiry.knobs'), instanceId: 'chatty' });
    expect(await view('expiry.knobs')).toMatchObject({ status: 'active', activeInstances: 2 });

    // 29 s of silence: within the 30 s timeout, several sweeps later nothing has changed.
    h.clock.advance(29_000);
    await h.registry.expireStale();
    expect(await view('expiry.knobs')).toMatchObject({ activeInstances: 2 });

    // Only "chatty" heartbeats; once the clock passes 30 s since "quiet" was last seen, the sweep expires it.
    await beat('expiry.knobs', 'chatty');
    await waitFor(
      async () =>
        (await view('expiry.knobs'))?.instances.find((i) => i.instanceId === 'chatty')?.lastSeenAt ===
        h.clock.now().toISOString(),
      5_000,
    );
    h.clock.advance(2_000);
    const expired = await waitFor(async () => {
      const v = await view('expiry.knobs');
      return v?.activeInstances === 1 ? v : undefined;
    }, 5_000);
    expect(expired.status).toBe('active');
    expect(expired.instances.map((i) => [i.instanceId, i.status])).toEqual([
      ['chatty', 'active'],
      ['quiet', 'inactive'],
    ]);

    // Now "chatty" falls silent too: the capability is inactive and leaves the planner's view.
    h.clock.advance(31_000);
    await waitFor(async () => (await view('expiry.knobs'))?.status === 'inactive', 5_000);
    const planners = activeRegistrations(await fetchCapabilitySnapshot(h.runtime.messaging, prefix));
    expect(planners.map((r) => r.capabilityId)).not.toContain('expiry.knobs');

    // The next heartbeat brings the instance back.
    await beat('expiry.knobs', 'quiet');
    const revived = await waitFor(async () => {
      const v = await view('expiry.knobs');
      return v?.status === 'active' ? v : undefined;
    }, 5_000);
    expect(revived.instances.find((i) => i.instanceId === 'quiet')?.status).toBe('active');
    const events = (await h.runtime.store.readStream(capabilityStreamId('expiry.knobs'))).map((e) => [
      e.type,
      (e.payload as { instanceId?: string; status?: string }).instanceId,
      (e.payload as { status?: string }).status,
    ]);
    expect(events).toEqual([
      ['capability_registered', 'quiet', undefined],
      ['capability_registered', 'chatty', undefined],
      ['capability_status_changed', 'quiet', 'inactive'],
      ['capability_status_changed', 'chatty', 'inactive'],
      ['capability_status_changed', 'quiet', 'active'],
    ]);
  });

  it('a heartbeat racing the sweep that expires its instance always leaves it active', async () => {
    for (let round = 0; round < 5; round++) {
      const id = `race-${round}`;
      await register({ registration: registration('race.knobs'), instanceId: id });
      h.clock.advance(31_000);
      await Promise.all([
        h.registry.expireStale(),
        h.registry.heartbeat({
          subject: registryAgentSubject(prefix, 'heartbeat', AGENT, 'race.knobs'),
          data: { capabilityId: 'race.knobs', instanceId: id },
          headers: {},
        }),
        h.registry.expireStale(),
      ]);
      await waitFor(
        async () =>
          (await view('race.knobs'))?.instances.find((i) => i.instanceId === id)?.status === 'active',
        5_000,
      );
      await nats.request(
        registryAgentSubject(prefix, 'deregister', AGENT, 'race.knobs'),
        { capabilityId: 'race.knobs', instanceId: id },
        { timeoutMs: 5_000 },
      );
    }
  });

  it('finds the stale instances among many in one query, each judged by its own timeout', async () => {
    const db = h.runtime.database.db;
    // Read-model rows are seeded directly: the two tables written, added to the store's database type.
    const seed = db.withTables<{
      capabilities: {
        capability_id: string;
        instance_id: string;
        status: string;
        registration: string;
        registered_at: string;
        updated_at: string;
      };
      capability_liveness: { capability_id: string; instance_id: string; last_seen_at: string };
    }>();
    const now = new Date('2030-01-01T00:00:00.000Z');
    const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
    const rows: Array<[string, string, Record<string, unknown> | undefined, number, string]> = [];
    for (let i = 0; i < 1000; i++)
      rows.push([`scale.cap${i % 100}`, `i${i}`, { intervalSeconds: 10 }, 5, 'active']);
    rows.push(['scale.default', 'silent', undefined, 91, 'active']); // no heartbeat declared: 3 × 30 s
    rows.push(['scale.default', 'fine', undefined, 89, 'active']);
    rows.push(['scale.explicit', 'silent', { intervalSeconds: 10, timeoutSeconds: 15 }, 16, 'active']);
    rows.push(['scale.cap7', 'late', { intervalSeconds: 10 }, 31, 'active']);
    rows.push(['scale.cap8', 'gone', { intervalSeconds: 10 }, 500, 'deregistered']);
    rows.push(['scale.cap9', 'already', { intervalSeconds: 10 }, 500, 'inactive']);
    await seed
      .insertInto('capabilities')
      .values(
        rows.map(([capabilityId, instanceId, heartbeat, , status]) => ({
          capability_id: capabilityId,
          instance_id: instanceId,
          status,
          registered_at: ago(1000),
          updated_at: ago(1000),
          registration: JSON.stringify({ ...registration(capabilityId), heartbeat }),
        })),
      )
      .execute();
    await seed
      .insertInto('capability_liveness')
      .values(
        rows.map(([capabilityId, instanceId, , secondsAgo]) => ({
          capability_id: capabilityId,
          instance_id: instanceId,
          last_seen_at: ago(secondsAgo),
        })),
      )
      .execute();
    const stale = await findStaleInstances(db, now);
    expect(
      stale
        .filter((s) => s.capabilityId.startsWith('scale.'))
        .map((s) => [s.capabilityId, s.instanceId, s.timeoutSeconds]),
    ).toEqual([
      ['scale.cap7', 'late', 30],
      ['scale.default', 'silent', 90],
      ['scale.explicit', 'silent', 15],
    ]);
    await sql`delete from capabilities where capability_id like 'scale.%'`.execute(db);
  });

  it('deregisters an instance gracefully; the capability stays while another instance serves it', async () => {
    await register({ registration: registration('bye.knobs'), instanceId: 'b1' });
    await register({ registration: registration('bye.knobs'), instanceId: 'b2' });
    await nats.request(
      registryAgentSubject(prefix, 'deregister', AGENT, 'bye.knobs'),
      { capabilityId: 'bye.knobs', instanceId: 'b1', reason: 'signal:SIGTERM' },
      { timeoutMs: 5_000 },
    );
    expect(await view('bye.knobs')).toMatchObject({
      status: 'active',
      activeInstances: 1,
      instances: [
        expect.objectContaining({ instanceId: 'b1', status: 'deregistered' }),
        expect.objectContaining({ instanceId: 'b2', status: 'active' }),
      ],
    });
    // A deregistered instance does not come back by heartbeat, nor expire.
    await beat('bye.knobs', 'b1');
    h.clock.advance(60_000);
    await beat('bye.knobs', 'b2');
    // The background sweep may expire b2 before its heartbeat lands; the heartbeat then revives it.
    await waitFor(async () => {
      const v = await view('bye.knobs');
      return (
        v?.activeInstances === 1 &&
        v.instances.find((i) => i.instanceId === 'b2')?.lastSeenAt === h.clock.now().toISOString()
      );
    }, 5_000);
    await h.registry.expireStale();
    expect(await view('bye.knobs')).toMatchObject({ status: 'active', activeInstances: 1 });
    await nats.request(
      registryAgentSubject(prefix, 'deregister', AGENT, 'bye.knobs'),
      { capabilityId: 'bye.knobs', instanceId: 'b2' },
      { timeoutMs: 5_000 },
    );
    expect(await view('bye.knobs')).toMatchObject({ status: 'deregistered', activeInstances: 0 });
  });

  it('lets two instances of one agent share 100 invocations through the queue group: each gets a share, none lost or doubled', async () => {
    const served: Array<{ instanceId: string; key: string }> = [];
    const agent = defineAgent({
      registration: registration('shared.knobs'),
      handle: async (invocation, ctx) => {
        served.push({ instanceId: ctx.instanceId, key: ctx.idempotencyKey });
        await new Promise((resolve) => setTimeout(resolve, 2));
        return { planKnobs: { variantCount: 1, ctaFocus: invocation.idempotencyKey } };
      },
    });
    const connections = await Promise.all(
      [1, 2].map(() => NatsMessaging.connect(natsTestUrl(), { logger: quiet })),
    );
    const handles: AgentHandle[] = [];
    try {
      for (const [i, messaging] of connections.entries())
        handles.push(
          await startAgent(agent, {
            messaging,
            prefix,
            instanceId: `replica-${i + 1}`,
            logger: silentLogger,
            heartbeatIntervalMs: 100,
          }),
        );
      await Promise.all(handles.map((a) => a.ready));
      expect(await view('shared.knobs')).toMatchObject({ activeInstances: 2 });

      const executor: Messaging = nats;
      const keys = Array.from({ length: 100 }, (_, i) => `run-1:node-${i}:1`);
      const results = await Promise.all(
        keys.map((key) =>
          executor.request<AgentResult>(
            agentInvokeSubject(prefix, 'shared.knobs'),
            {
              runId: 'run-1',
              nodeId: key.split(':')[1],
              attempt: 1,
              idempotencyKey: key,
              capabilityId: 'shared.knobs',
              inputs: { toneOfVoice: 'friendly' },
              outputFacets: ['planKnobs'],
              context: { objective: 'share' },
            },
            { timeoutMs: 10_000 },
          ),
        ),
      );
      expect(results.map((r) => (r.output.planKnobs as { ctaFocus: string }).ctaFocus)).toEqual(keys);
      expect(served).toHaveLength(100);
      expect(new Set(served.map((s) => s.key)).size).toBe(100);
      const share = (id: string) => served.filter((s) => s.instanceId === id).length;
      expect(share('replica-1')).toBeGreaterThan(0);
      expect(share('replica-2')).toBeGreaterThan(0);
      expect(share('replica-1') + share('replica-2')).toBe(100);
    } finally {
      await Promise.all(handles.map((a) => a.stop('test_done')));
      await Promise.all(connections.map((c) => c.drain()));
    }
    expect(await view('shared.knobs')).toMatchObject({ status: 'deregistered', activeInstances: 0 });
  });
});
