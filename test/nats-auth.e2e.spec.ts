import { join } from 'node:path';
import { FLEX_SERVICES } from '@flex/runtime';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { startAuthedNats, type AuthedNats } from './integration/authed-nats';
import { expectSampleRunCompleted, sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const TOKEN = 'e2e-auth-client-token';

/**
 * Distributed mode over NATS as shipped: the generated permissions, each service and the agents
 * under their own identity with a password, TLS to the server. The sample run completes, so every
 * publish, consume, request and reply the run needs is allowed, and nothing more is (the
 * int specs prove the refusals).
 */
describe('distributed mode over authenticated NATS (generated permissions, TLS)', () => {
  const procs: ManagedProcess[] = [];
  let db: { url: string; drop(): Promise<void> };
  let nats: AuthedNats;
  let gatewayPort = 0;
  const logs = () =>
    [
      ...procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-4000)}`),
      `--- nats ---\n${nats.server.log()}`,
    ].join('\n');

  beforeAll(async () => {
    const prefix = testPrefix('dist_auth');
    nats = await startAuthedNats(prefix);
    db = await createTestDatabase('dist_auth');
    const common = {
      FLEX_DATABASE_URL: db.url,
      FLEX_NATS_PREFIX: prefix,
      FLEX_LOG_LEVEL: 'warn',
      FLEX_API_TOKENS: `${TOKEN}:client`,
    };
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    await Promise.all(
      FLEX_SERVICES.map(async (name) => {
        const port = await freePort();
        if (name === 'gateway') gatewayPort = port;
        const env = { ...common, ...nats.env(name), PORT: String(port) };
        procs.push(startNodeProcess(name, join(ROOT, `services/${name}/dist/main.js`), env, ROOT));
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
      }),
    );
    const agentsEnv = { ...nats.env('agents'), FLEX_NATS_PREFIX: prefix, FLEX_LOG_LEVEL: 'warn' };
    procs.push(startNodeProcess('agents', join(ROOT, 'agents/reference/dist/main.js'), agentsEnv, ROOT));
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, TOKEN);
    await waitFor(
      async () =>
        (await client.json('GET', '/api/v1/flex/capabilities')).body?.capabilities?.filter(
          (c: any) => c.status === 'active',
        ).length >= 3,
      60_000,
      logs,
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    await db?.drop();
    await nats?.stop();
  });

  it('streams the sample envelope to complete; no permission was refused on the way', async () => {
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, TOKEN);
    const result = await client.runStream(sampleEnvelope());
    if (result.status !== 200 || result.frames[result.frames.length - 1]?.type !== 'complete') {
      throw new Error(
        `run did not complete: ${JSON.stringify(result.frames.map((f) => [f.type, f.message]))}\n${logs()}`,
      );
    }
    const { runId } = expectSampleRunCompleted(result.frames);
    const detail = await waitFor(
      async () => {
        const res = await client.json('GET', `/api/v1/flex/runs/${runId}`);
        return res.body?.run?.status === 'completed' ? res.body : undefined;
      },
      10_000,
      logs,
    );
    expect(detail.nodes.filter((n: any) => n.status === 'completed').length).toBeGreaterThanOrEqual(2);
    // The server logs every refusal ("... Violation ..."): the run needed none.
    expect(nats.server.errors().filter((line) => /Violation/.test(line))).toEqual([]);
  }, 60_000);
});
