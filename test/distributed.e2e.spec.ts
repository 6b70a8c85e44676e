import { join } from 'node:path';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  natsTestUrl,
  parsePrometheusText,
  sampleSum,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { expectSampleRunCompleted, sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'] as const;
const TOKEN = 'e2e-client-token:client,e2e-operator-token:operator';

/** Distributed mode: five service processes and the agents process over real NATS JetStream and Postgres. */
describe('distributed mode (separate processes)', () => {
  const procs: ManagedProcess[] = [];
  let db: { url: string; drop(): Promise<void> };
  let gatewayPort: number;
  let sampleRunId: string;
  const ports: Record<string, number> = {};
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-4000)}`).join('\n');

  beforeAll(async () => {
    db = await createTestDatabase('distributed');
    const prefix = testPrefix('dist');
    const common = {
      FLEX_DATABASE_URL: db.url,
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: prefix,
      FLEX_LOG_LEVEL: 'warn',
      FLEX_API_TOKENS: TOKEN,
    };
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    await Promise.all(
      SERVICES.map(async (name) => {
        const port = await freePort();
        if (name === 'gateway') gatewayPort = port;
        ports[name] = port;
        // The gateway as the image runs it: apps/flex's composition root (it serves the policy what-if).
        const entry = name === 'gateway' ? 'apps/flex/dist/gateway-main.js' : `services/${name}/dist/main.js`;
        const proc = startNodeProcess(name, join(ROOT, entry), { ...common, PORT: String(port) }, ROOT);
        procs.push(proc);
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
      }),
    );
    procs.push(
      startNodeProcess(
        'agents',
        join(ROOT, 'agents/reference/dist/main.js'),
        { FLEX_NATS_URL: natsTestUrl(), FLEX_NATS_PREFIX: prefix, FLEX_LOG_LEVEL: 'warn' },
        ROOT,
      ),
    );
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, 'e2e-client-token');
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
  });

  it('streams the sample envelope to complete with two distinct variants', async () => {
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, 'e2e-client-token');
    const result = await client.runStream(sampleEnvelope());
    if (result.status !== 200 || result.frames[result.frames.length - 1]?.type !== 'complete') {
      throw new Error(
        `run did not complete: ${JSON.stringify(result.frames.map((f) => [f.type, f.message]))}\n${logs()}`,
      );
    }
    const { runId } = expectSampleRunCompleted(result.frames);
    sampleRunId = runId;
    const detail = await waitFor(
      async () => {
        const res = await client.json('GET', `/api/v1/flex/runs/${runId}`);
        return res.body?.run?.status === 'completed' ? res.body : undefined;
      },
      10_000,
      logs,
    );
    expect(detail.nodes.filter((n: any) => n.status === 'completed').length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('the gateway the image runs answers the policy what-if over that run (operators only)', async () => {
    const operator = new FlexClient(`http://127.0.0.1:${gatewayPort}`, 'e2e-operator-token');
    const body = { policies: { runtime: [] }, mode: 'merge', runs: [sampleRunId] };
    const res = await operator.json('POST', '/api/v1/flex/admin/policy-what-if', body);
    expect(res.status).toBe(200);
    // Its own policies kept (merge with none): the run decides again exactly as recorded.
    expect(res.body.runs.map((r: any) => [r.runId, r.verdict])).toEqual([[sampleRunId, 'unchanged']]);
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, 'e2e-client-token');
    expect((await client.json('POST', '/api/v1/flex/admin/policy-what-if', body)).status).toBe(403);
  }, 60_000);

  it('counts that run once across the processes: started where start committed, completed where complete did', async () => {
    const scrapes = Object.fromEntries(
      await Promise.all(
        SERVICES.map(async (name) => {
          const text = await (await fetch(`http://127.0.0.1:${ports[name]}/metrics`)).text();
          return [name, parsePrometheusText(text)] as const;
        }),
      ),
    );
    const per = (metric: string) =>
      Object.fromEntries(SERVICES.map((n) => [n, sampleSum(scrapes[n], metric)]));
    const only = (service: string) => Object.fromEntries(SERVICES.map((n) => [n, n === service ? 1 : 0]));
    expect(per('flex_runs_started_total')).toEqual(only('gateway'));
    expect(per('flex_runs_completed_total')).toEqual(only('executor'));
    expect(sampleSum(scrapes.planner, 'flex_plan_draft_duration_seconds_count')).toBe(1);
    expect(sampleSum(scrapes.executor, 'flex_node_duration_seconds_count')).toBeGreaterThanOrEqual(2);
  });
});
