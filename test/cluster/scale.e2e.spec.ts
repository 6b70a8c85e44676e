import { join } from 'node:path';
import { createDatabase, type FlexDatabase } from '@flex/event-store';
import { waitFor, type Frame, type LiveStream } from '@flex/testing';
import { sql } from 'kysely';
import { sampleEnvelope } from '../sample-run';
import { Cluster } from './cluster';
import { formatDistribution, measureDistribution, writeReport } from './distribution';
import { scaleConfig } from './scale-config';

const TERMINAL = ['complete', 'run_failed', 'run_cancelled'];
const config = scaleConfig();
/** Bounds for the whole batch of runs: generous, a loaded 2-core machine runs it. */
const RUNS_TIMEOUT_MS = 60_000 + config.runs * 3_000;

interface Followed {
  runId: string;
  /** The gateway the run was started at, and the other one, which streams it and approves it. */
  startedAt: string;
  followedAt: string;
  hitl: boolean;
  stream: LiveStream;
}

/**
 * The scale-out test (issue 16 §1): every service as several processes, and two replicas of the
 * reference agents, on real NATS JetStream and Postgres. Runs are submitted concurrently, round
 * robin over the gateways; each is followed over SSE from the other gateway, and the runs that ask
 * a human are approved there too. `npm run test:scale` runs the full size (FLEX_SCALE=full).
 */
describe(`scale-out: ${config.runs} runs over a cluster (${config.size})`, () => {
  let cluster: Cluster;
  let database: FlexDatabase;

  beforeAll(async () => {
    const began = Date.now();
    cluster = await Cluster.start({
      label: 'scale',
      topology: config.topology,
      env: {
        FLEX_AGENT_TIMEOUT_MS: '30000',
        // One client token submits every run: the per-token limits are raised past the batch.
        FLEX_LIMIT_RUNS_PER_TOKEN: '10000',
        FLEX_LIMIT_STREAMS_PER_TOKEN: '10000',
        FLEX_LIMIT_CONNECTIONS_PER_TOKEN: '10000',
        FLEX_LIMIT_REQUESTS_PER_SECOND: '10000',
        FLEX_LIMIT_REQUEST_BURST: '10000',
      },
    });
    await cluster.client(0).waitForActiveCapabilities(3, 60_000, () => cluster.logs());
    database = await createDatabase({ url: cluster.databaseUrl, poolSize: 2 });
    console.log(`[scale] ${cluster.instances().length} processes ready in ${Date.now() - began} ms`);
  }, 240_000);

  afterAll(async () => {
    await database?.close();
    await cluster?.stop();
  });

  const gatewayNames = () => cluster.instances('gateway').map((g) => g.name);

  async function submit(i: number): Promise<Followed> {
    const names = gatewayNames();
    const startedAt = names[i % names.length];
    const followedAt = names[(i + 1) % names.length];
    const hitl = i % config.hitlEvery === config.hitlEvery - 1;
    const envelope = sampleEnvelope();
    envelope.policies.requiresHitlApproval = hitl;
    const started = await cluster.client(startedAt).start(envelope);
    expect({ run: i, status: started.status }).toEqual({ run: i, status: 200 });
    started.close();
    const stream = await cluster.client(followedAt).follow(started.runId);
    return { runId: started.runId, startedAt, followedAt, hitl, stream };
  }

  /** Approve the run's human request at the gateway that follows it (not the one that started it). */
  async function approve(run: Followed): Promise<void> {
    const request = await waitFor(
      async () => run.stream.frames.find((f) => f.type === 'hitl_request'),
      RUNS_TIMEOUT_MS,
      () => `run ${run.runId}: no hitl_request\n${cluster.logs()}`,
    );
    const operator = cluster.client(run.followedAt, cluster.token('operator'));
    const res = await operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: run.runId,
      requestId: request.payload.requestId,
      decision: 'approve',
    });
    expect({ runId: run.runId, status: res.status }).toEqual({ runId: run.runId, status: 200 });
  }

  const ended = (run: Followed): Promise<Frame[]> => within(run.stream, RUNS_TIMEOUT_MS, run.runId);

  /** The stream's frames once the server ended it, failing after `timeoutMs`. */
  async function within(stream: LiveStream, timeoutMs: number, runId: string): Promise<Frame[]> {
    await waitFor(
      async () => stream.isEnded(),
      timeoutMs,
      () => `run ${runId} never ended\n${cluster.logs()}`,
    );
    return stream.ended;
  }

  const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
    Number((await query.execute(database.db)).rows[0].n);

  /** Every SSE client saw exactly its run's stored events, in order, ending in `complete`. */
  async function expectStreamsEqualStore(runs: Followed[], streamed: Frame[][]): Promise<void> {
    const view = cluster.client(0, cluster.token('admin'));
    for (const [i, { runId, hitl }] of runs.entries()) {
      const stored = await view.events(runId);
      const ids = streamed[i].map((f) => f.id);
      expect({ runId, ids }).toEqual({ runId, ids: stored.map((f) => f.id) });
      expect({ runId, last: stored.at(-1)?.type }).toEqual({ runId, last: 'complete' });
      const resolved = stored.filter((f) => f.type === 'hitl_resolved').length;
      expect({ runId, resolved }).toEqual({ runId, resolved: hitl ? 1 : 0 });
    }
  }

  /** No node attempt executed twice, none lost: one agent call per agent `node_start` in the store. */
  async function expectOneCallPerAttempt(): Promise<number> {
    const keys = cluster
      .invocations()
      .filter((c) => c.event === 'start')
      .map((c) => c.key);
    const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
    expect(twice).toEqual([]);
    // (Orchestrator-managed nodes, branch and merge, start and complete without an agent.)
    const attempts = await sql<{ key: string }>`select payload->>'idempotencyKey' as key
      from events where type = 'node_start' and payload->>'capabilityId' is not null`.execute(database.db);
    expect([...keys].sort()).toEqual(attempts.rows.map((r) => r.key).sort());
    return twice.length;
  }

  /** Runs submitted = `start` events = terminal events in the store = completed rows of the read model. */
  async function expectCountsReconcile(): Promise<number> {
    const started = await count(sql<{ n: string }>`select count(*) as n from events where type = 'start'`);
    const terminal = await count(
      sql<{ n: string }>`select count(*) as n from events where type in (${sql.join(TERMINAL)})`,
    );
    expect({ started, terminal }).toEqual({ started: config.runs, terminal: config.runs });
    const completedRows = () =>
      count(sql<{ n: string }>`select count(*) as n from runs where status = 'completed'`);
    await waitFor(
      async () => (await completedRows()) === config.runs,
      60_000,
      () => 'the read model never showed every run completed',
    );
    return config.runs - terminal;
  }

  it(
    'every run completes once, every stream sees every event once, no agent call twice, the work spreads',
    async () => {
      const began = Date.now();
      const runs = await Promise.all(Array.from({ length: config.runs }, (_, i) => submit(i)));
      await Promise.all(runs.filter((r) => r.hitl).map(approve));
      const streamed = await Promise.all(runs.map(ended));
      const durationMs = Date.now() - began;
      await expectStreamsEqualStore(runs, streamed);
      const duplicates = await expectOneCallPerAttempt();
      const lost = await expectCountsReconcile();

      const distribution = await measureDistribution(cluster);
      const hitlRuns = runs.filter((r) => r.hitl).length;
      console.log(
        `[scale] ${config.runs} runs (${hitlRuns} approved by a human) in ${(durationMs / 1000).toFixed(1)} s, ` +
          `duplicates ${duplicates}, lost ${lost}\n${formatDistribution(distribution)}`,
      );
      const { size, topology } = config;
      writeReport(join(__dirname, `results/scale-${size}.json`), {
        ...{ at: new Date().toISOString(), size, topology, runs: config.runs, hitlRuns, durationMs },
        ...{ duplicates, lost, distribution },
      });
      // The work spread: every instance of every kind handled a share.
      for (const { kind, instances } of distribution)
        for (const { instance, count: handled } of instances)
          expect({ kind, instance, handled: handled > 0 }).toEqual({ kind, instance, handled: true });
    },
    120_000 + RUNS_TIMEOUT_MS,
  );

  it(
    'instances stopped by name (SIGTERM drains, kill -9) and restarted under their names: the cluster carries on',
    async () => {
      const executor = cluster.instance('executor-2');
      const before = { pid: executor.proc.child.pid, url: executor.url };
      expect(await cluster.kill('executor-2', 'SIGTERM')).toBe(0);
      expect(await cluster.kill('agents-2')).toBeNull();
      expect(
        cluster
          .instances()
          .filter((i) => !i.running)
          .map((i) => i.name),
      ).toEqual(['executor-2', 'agents-2']);
      const [back] = await Promise.all([cluster.restart('executor-2'), cluster.restart('agents-2')]);
      expect(back.url).toBe(before.url);
      expect(back.proc.child.pid).not.toBe(before.pid);
      expect(cluster.instances().every((i) => i.running)).toBe(true);
      const stream = await cluster.client(1).start(sampleEnvelope());
      const frames = await within(stream, RUNS_TIMEOUT_MS, stream.runId);
      expect(frames.at(-1)?.type).toBe('complete');
    },
    120_000 + RUNS_TIMEOUT_MS,
  );
});
