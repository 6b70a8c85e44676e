import { join } from 'node:path';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  natsTestUrl,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const TOKEN = 'failover-client-token';
const WRITER = 'ContentGeneratorAgent.linkedinVariants';
const BACKUP = 'BackupWriterAgent.linkedinVariants';

/**
 * An agent process killed mid-run (issue 4): its in-flight invocation is lost, the executor retries,
 * falls back to another capability producing the same facets, and the run completes; the registry
 * turns the dead instance inactive once its heartbeats stop.
 */
describe('an agent killed mid-run', () => {
  const procs: ManagedProcess[] = [];
  let db: { url: string; drop(): Promise<void> };
  let client: FlexClient;
  let writer: ManagedProcess;
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`).join('\n');

  beforeAll(async () => {
    db = await createTestDatabase('failover');
    const prefix = testPrefix('failover');
    const nats = { FLEX_NATS_URL: natsTestUrl(), FLEX_NATS_PREFIX: prefix };
    const common = {
      ...nats,
      FLEX_DATABASE_URL: db.url,
      FLEX_LOG_LEVEL: 'warn',
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_AGENT_TIMEOUT_MS: '2500',
      FLEX_NODE_MAX_ATTEMPTS: '2',
      // The writer is gone for good: its absence is waited for 2 s, then the backup takes over.
      FLEX_UNREACHABLE_BUDGET_MS: '2000',
    };
    let gatewayPort = 0;
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    await Promise.all(
      ['registry', 'planner', 'validator', 'executor', 'gateway'].map(async (name) => {
        const port = await freePort();
        if (name === 'gateway') gatewayPort = port;
        const script = join(ROOT, `services/${name}/dist/main.js`);
        procs.push(startNodeProcess(name, script, { ...common, PORT: String(port) }, ROOT));
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
      }),
    );
    const fixture = join(__dirname, 'fixtures/slow-agents.js');
    procs.push(
      startNodeProcess(
        'helpers',
        join(ROOT, 'agents/reference/dist/main.js'),
        { ...nats, FLEX_AGENTS: 'StrategyManagerAgent.briefing,QualityAssuranceAgent.contentReview' },
        ROOT,
      ),
    );
    writer = startNodeProcess(
      'writer',
      fixture,
      { ...nats, SLOW_AGENT_ONLY: WRITER, SLOW_AGENT_DELAY_MS: '4000' },
      ROOT,
    );
    procs.push(writer);
    procs.push(
      startNodeProcess(
        'backup',
        fixture,
        {
          ...nats,
          SLOW_AGENT_ONLY: WRITER,
          SLOW_AGENT_RENAME: `${WRITER}=${BACKUP}`,
          SLOW_AGENT_DELAY_MS: '0',
        },
        ROOT,
      ),
    );
    client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, TOKEN);
    await waitFor(
      async () =>
        (await client.json('GET', '/api/v1/flex/capabilities')).body?.capabilities?.filter(
          (c: any) => c.status === 'active',
        ).length >= 4,
      60_000,
      logs,
    );
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await db?.drop();
  });

  it('falls back to another capability and completes; the dead instance turns inactive', async () => {
    const envelope = sampleEnvelope();
    envelope.policies = { planner: { selection: { prefer: ['ContentGeneratorAgent'] } } };
    const stream = client.runStream(envelope);
    await waitFor(
      async () => {
        const { runs } = (await client.json('GET', '/api/v1/flex/runs')).body;
        if (!runs[0]) return false;
        const detail = (await client.json('GET', `/api/v1/flex/runs/${runs[0].runId}`)).body;
        return detail.nodes?.some((n: any) => n.capabilityId === WRITER && n.status === 'running');
      },
      30_000,
      logs,
    );
    await writer.kill('SIGKILL');
    const runId = (await client.json('GET', '/api/v1/flex/runs')).body.runs[0].runId;
    await waitFor(
      async () =>
        ['completed', 'failed'].includes(
          (await client.json('GET', `/api/v1/flex/runs/${runId}`)).body.run.status,
        ),
      45_000,
      logs,
    ).catch(async (error) => {
      const detail = (await client.json('GET', `/api/v1/flex/runs/${runId}`)).body;
      throw new Error(
        `${(error as Error).message}\nrun: ${JSON.stringify({ run: detail.run, nodes: detail.nodes.map((n: any) => [n.nodeId, n.capabilityId, n.status, n.attempt, n.error]), hitl: detail.hitlRequests })}`,
      );
    });
    const { frames } = await stream;
    const types = frames.map((f) => f.type);
    if (types[types.length - 1] !== 'complete')
      throw new Error(`run did not complete: ${JSON.stringify(frames.map((f) => f.message))}\n${logs()}`);
    expect(types.filter((t) => t === 'complete' || t === 'run_failed')).toEqual(['complete']);
    const writerStarts = frames
      .filter((f) => f.type === 'node_start' && f.payload?.kind === 'execution')
      .map((f) => f.payload.capabilityId);
    expect(writerStarts[0]).toBe(WRITER);
    expect(writerStarts[writerStarts.length - 1]).toBe(BACKUP);
    expect(frames.some((f) => f.type === 'node_error' && f.payload?.capabilityId === WRITER)).toBe(true);
    expect(frames[frames.length - 1].payload.output.copyVariants).toHaveLength(2);
    await waitFor(
      async () => {
        const caps = (await client.json('GET', '/api/v1/flex/capabilities')).body.capabilities;
        return caps.find((c: any) => c.registration.capabilityId === WRITER)?.status === 'inactive';
      },
      30_000,
      logs,
    );
  }, 90_000);
});
