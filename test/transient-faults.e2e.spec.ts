import { join } from 'node:path';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  startNats,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type Frame,
  type ManagedProcess,
  type NatsTestServer,
} from '@flex/testing';
import { sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const TOKEN = 'transient-client-token';
const WRITER = 'ContentGeneratorAgent.linkedinVariants';
const HELPERS = 'StrategyManagerAgent.briefing,QualityAssuranceAgent.contentReview';

/**
 * Transient is not failure (issue 16): services and agents as separate processes on a throwaway
 * nats-server (so it can be restarted) and real Postgres. The writer agent (the node the plan's
 * human fallback stands by for) goes away mid-run; the strategy agent takes 1.5 s per call, so the
 * writer is asked for while it is gone.
 */
describe('transient faults mid-run (separate processes)', () => {
  const procs: ManagedProcess[] = [];
  let nats: NatsTestServer;
  let db: { url: string; drop(): Promise<void> };
  let common: Record<string, string>;
  let agentEnv: Record<string, string>;
  let client: FlexClient;
  let writer: ManagedProcess;
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`).join('\n');
  const start = async (name: string, env: Record<string, string> = {}) => {
    const port = await freePort();
    const proc = startNodeProcess(
      name,
      join(ROOT, `services/${name.replace(/-\d+$/, '')}/dist/main.js`),
      { ...common, ...env, PORT: String(port) },
      ROOT,
    );
    procs.push(proc);
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
    return port;
  };
  const startAgents = (name: string, only: string, delayMs: number) => {
    const proc = startNodeProcess(
      name,
      join(__dirname, 'fixtures/slow-agents.js'),
      { ...agentEnv, SLOW_AGENT_ONLY: only, SLOW_AGENT_DELAY_MS: String(delayMs) },
      ROOT,
    );
    procs.push(proc);
    return proc;
  };
  const capabilityActive = (id: string) => async () => (await client.activeCapabilityIds()).includes(id);

  beforeAll(async () => {
    [nats, db] = await Promise.all([startNats(), createTestDatabase('transient')]);
    const prefix = testPrefix('transient');
    agentEnv = { FLEX_NATS_URL: nats.url, FLEX_NATS_PREFIX: prefix, SLOW_AGENT_HEARTBEAT_S: '1' };
    common = {
      FLEX_NATS_URL: nats.url,
      FLEX_NATS_PREFIX: prefix,
      FLEX_DATABASE_URL: db.url,
      FLEX_LOG_LEVEL: 'warn',
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_AGENT_TIMEOUT_MS: '20000',
      // Its floor: what a killed executor held comes back to another one that much sooner.
      FLEX_BUS_ACK_WAIT_MS: '10000',
    };
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    const [gatewayPort] = await Promise.all(
      ['gateway', 'registry', 'planner', 'validator', 'executor-1'].map((name) => start(name)),
    );
    client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, TOKEN);
    startAgents('helpers', HELPERS, 1_500);
    writer = startAgents('writer', WRITER, 0);
    await waitFor(async () => (await client.activeCapabilityIds()).length >= 3, 60_000, logs);
  }, 240_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await db?.drop();
    await nats?.stop();
  });

  /** Start a run; resolves once its first node runs (the plan chose the writer by then). */
  async function startRun(): Promise<string> {
    const stream = await client.start(sampleEnvelope());
    expect(stream.status).toBe(200);
    stream.close();
    await waitFor(
      async () => (await client.events(stream.runId)).some((f) => f.type === 'node_start'),
      60_000,
      logs,
    );
    return stream.runId;
  }

  async function ended(runId: string, timeoutMs = 90_000): Promise<Frame[]> {
    return waitFor(
      async () => {
        const frames = await client.events(runId);
        return frames.some((f) => f.type === 'complete' || f.type === 'run_failed') ? frames : undefined;
      },
      timeoutMs,
      logs,
    );
  }

  const writerNode = (frames: Frame[]) =>
    frames.find((f) => f.type === 'node_start' && f.payload.capabilityId === WRITER)?.nodeId;
  const count = (frames: Frame[], type: string) => frames.filter((f) => f.type === type).length;

  it('an agent killed and back 1.5 s later: the run completes with no failed attempt and no human asked', async () => {
    const runId = await startRun();
    await writer.kill('SIGKILL');
    const back = new Promise<ManagedProcess>((resolve) =>
      setTimeout(() => resolve(startAgents('writer-2', WRITER, 0)), 1_500),
    );
    const frames = await ended(runId);
    writer = await back;
    expect(frames.at(-1)?.type).toBe('complete');
    expect(count(frames, 'node_error')).toBe(0);
    expect(count(frames, 'hitl_request')).toBe(0);
    const nodeId = writerNode(frames);
    const attempts = frames.filter((f) => f.type === 'node_start' && f.nodeId === nodeId);
    expect(attempts.map((f) => f.payload.attempt)).toEqual([1]);
    // The writer was asked for while it was gone: the wait is on the run's log, not a failed attempt.
    expect(
      frames.some((f) => f.type === 'log' && /ContentGeneratorAgent.* is unreachable/.test(f.message ?? '')),
    ).toBe(true);
  }, 150_000);

  it('the registry killed and back 1.5 s later while a run is planned: the planner and validator wait for it, the run completes', async () => {
    await waitFor(capabilityActive(WRITER), 30_000, logs);
    await procs.find((p) => p.name === 'registry')!.kill('SIGKILL');
    const stream = await client.start(sampleEnvelope());
    expect(stream.status).toBe(200);
    stream.close();
    let restartedAt = Infinity;
    const back = new Promise<number>((resolve) =>
      setTimeout(() => {
        restartedAt = Date.now();
        resolve(start('registry-2'));
      }, 1_500),
    );
    const frames = await ended(stream.runId);
    await back;
    // The plan was drafted over the registry once it was back: the planner waited for it.
    const planned = frames.filter((f) => f.type === 'plan_generated');
    expect(planned).toHaveLength(1);
    expect(Date.parse(planned[0].timestamp)).toBeGreaterThan(restartedAt);
    expect(frames.at(-1)?.type).toBe('complete');
    expect(count(frames, 'plan_rejected')).toBe(0);
    expect(count(frames, 'node_error')).toBe(0);
    expect(count(frames, 'hitl_request')).toBe(0);
  }, 150_000);

  it('nats-server killed and restarted mid-run: the run completes, nothing failed, nobody asked', async () => {
    await waitFor(capabilityActive(WRITER), 30_000, logs);
    const runId = await startRun();
    const crashedAt = Date.now();
    await nats.restart(1_000);
    const revivedAt = Date.now();
    const frames = await ended(runId, 120_000);
    // The run was under way when NATS went, and ended after it came back.
    expect(Date.parse(frames.find((f) => f.type === 'node_start')!.timestamp)).toBeLessThan(crashedAt);
    expect(Date.parse(frames.at(-1)!.timestamp)).toBeGreaterThan(revivedAt);
    expect(frames.at(-1)?.type).toBe('complete');
    expect(count(frames, 'run_failed')).toBe(0);
    expect(count(frames, 'hitl_request')).toBe(0);
    expect(count(frames, 'node_error')).toBe(0);
    expect(frames[frames.length - 1].payload.output.copyVariants).toHaveLength(2);
  }, 180_000);

  it('the executor killed while it waits for an unreachable agent: another takes the wait over, the run completes with no failed attempt', async () => {
    await waitFor(capabilityActive(WRITER), 30_000, logs);
    const runId = await startRun();
    await writer.kill('SIGKILL');
    // The executor is waiting for the writer (its node_start delivery held): kill it there.
    await waitFor(
      async () =>
        (await client.events(runId)).some((f) => f.type === 'log' && /is unreachable/.test(f.message ?? '')),
      60_000,
      logs,
    );
    await procs.find((p) => p.name === 'executor-1')!.kill('SIGKILL');
    await start('executor-2');
    writer = startAgents('writer-3', WRITER, 0);
    const frames = await ended(runId);
    expect(frames.at(-1)?.type).toBe('complete');
    expect(count(frames, 'node_error')).toBe(0);
    expect(count(frames, 'hitl_request')).toBe(0);
    const nodeId = writerNode(frames);
    expect(
      frames.filter((f) => f.type === 'node_start' && f.nodeId === nodeId).map((f) => f.payload.attempt),
    ).toEqual([1]);
    expect(frames.filter((f) => f.type === 'node_complete' && f.nodeId === nodeId)).toHaveLength(1);
  }, 180_000);

  it('an agent down longer than the budget: one failed attempt, the human fallback asked; withdrawn when the agent is back, and the run completes', async () => {
    // An executor with a 3 s budget takes over (the one running leaves: SIGTERM drains it).
    await procs.find((p) => p.name === 'executor-2')!.kill('SIGTERM');
    await start('executor-3', { FLEX_UNREACHABLE_BUDGET_MS: '3000' });
    await waitFor(capabilityActive(WRITER), 30_000, logs);
    const runId = await startRun();
    await writer.kill('SIGKILL');
    const asked = await waitFor(
      async () => {
        const frames = await client.events(runId);
        return frames.some((f) => f.type === 'hitl_request' || f.type === 'run_failed') ? frames : undefined;
      },
      90_000,
      logs,
    );
    const nodeId = writerNode(asked);
    const errors = asked.filter((f) => f.type === 'node_error');
    expect(errors.map((f) => [f.nodeId, f.payload.error.code, f.payload.willRetry])).toEqual([
      [nodeId, 'agent_unreachable', false],
    ]);
    expect(asked.filter((f) => f.type === 'hitl_request').map((f) => f.payload.nodeId)).toEqual([nodeId]);
    writer = startAgents('writer-4', WRITER, 0);
    const frames = await ended(runId);
    expect(frames.at(-1)?.type).toBe('complete');
    const withdrawn = frames.filter((f) => f.type === 'hitl_withdrawn');
    expect(withdrawn.map((f) => f.payload.capabilityId)).toEqual([WRITER]);
    expect(count(frames, 'hitl_resolved')).toBe(0);
    const attempts = frames.filter((f) => f.type === 'node_start' && f.nodeId === nodeId);
    expect(attempts.map((f) => [f.payload.attempt, f.payload.capabilityId])).toEqual([
      [1, WRITER],
      [2, WRITER],
    ]);
    expect(frames.filter((f) => f.type === 'node_complete' && f.nodeId === nodeId)).toHaveLength(1);
    const detail = await client.runDetailThrough(runId, frames.at(-1)!.position);
    expect(detail.run.status).toBe('completed');
  }, 240_000);
});
