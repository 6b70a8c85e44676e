import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  testPrefix,
  waitFor,
  waitForHttp,
  type Frame,
  type ManagedProcess,
} from '@flex/testing';
import { sampleEnvelope } from './sample-run';
import {
  readInvocations,
  SAMPLE_FIRST_CAPABILITY,
  serviceEnv,
  startService,
  startSlowAgents,
} from './distributed-harness';

const TOKEN = 'crash-client-token:client';

/**
 * Crash safety (issue 6 §5): services as separate processes on real NATS JetStream and Postgres,
 * an agent that takes seconds per call; the executor is SIGKILLed while a node runs, another executor
 * process takes over, and the run completes with no node completed twice and no event lost.
 */
describe('executor crash mid-run (separate processes)', () => {
  const procs: ManagedProcess[] = [];
  let db: { url: string; drop(): Promise<void> };
  let gatewayPort: number;
  let common: Record<string, string>;
  let dir: string;
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`).join('\n');
  const start = (name: string, env: Record<string, string> = {}) => {
    const proc = startService(name, { ...common, ...env });
    procs.push(proc);
    return proc;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flex-crash-'));
    db = await createTestDatabase('executor_crash');
    const prefix = testPrefix('crash');
    // The ack wait at its floor: what the killed executor held comes back to the next one that much sooner.
    common = { ...serviceEnv(db.url, prefix, TOKEN), FLEX_BUS_ACK_WAIT_MS: '10000' };
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    await Promise.all(
      ['registry', 'planner', 'validator', 'executor-1', 'gateway'].map(async (name) => {
        const port = await freePort();
        if (name === 'gateway') gatewayPort = port;
        start(name, { PORT: String(port) });
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
      }),
    );
    procs.push(startSlowAgents(prefix, 6000, join(dir, 'invocations.jsonl'), [SAMPLE_FIRST_CAPABILITY]));
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, 'crash-client-token');
    await client.waitForActiveCapabilities(3, 60_000, logs);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 the executor while a node runs: another executor finishes the run, no node completes twice, no event is lost', async () => {
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, 'crash-client-token');
    const res = await fetch(`${client.baseUrl}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: client.headers({ Accept: 'text/event-stream' }),
      body: JSON.stringify(sampleEnvelope()),
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get('x-flex-run-id') as string;
    void res.text().catch(() => undefined);

    const invocations = () => readInvocations(join(dir, 'invocations.jsonl'));
    const first = await waitFor(async () => invocations().find((i) => i.event === 'start'), 60_000, logs);
    const executor = procs.find((p) => p.name === 'executor-1')!;
    await executor.kill('SIGKILL');
    expect(invocations().some((i) => i.event === 'end' && i.key === first.key)).toBe(false); // the node was in flight

    start('executor-2', { PORT: String(await freePort()) });
    const detail = await waitFor(
      async () => {
        const r = await client.json('GET', `/api/v1/flex/runs/${runId}`);
        return ['completed', 'failed'].includes(r.body?.run?.status) ? r.body : undefined;
      },
      120_000,
      logs,
    );
    expect(detail.run.status).toBe('completed');

    const frames: Frame[] = await client.events(runId);
    const types = frames.map((f) => f.type);
    expect(types.filter((t) => t === 'complete' || t === 'run_failed')).toEqual(['complete']);
    expect(types[types.length - 1]).toBe('complete');
    const plan = frames.find((f) => f.type === 'plan_generated')!.payload.plan;
    for (const node of plan.nodes.filter((n: any) => n.kind !== 'fallback')) {
      expect(frames.filter((f) => f.type === 'node_complete' && f.nodeId === node.id)).toHaveLength(1);
      const starts = frames
        .filter((f) => f.type === 'node_start' && f.nodeId === node.id)
        .map((f) => f.payload.attempt);
      expect(new Set(starts).size).toBe(starts.length); // each attempt started once
    }
    for (let i = 1; i < frames.length; i++)
      expect(frames[i].position).toBeGreaterThan(frames[i - 1].position);
    // No event lost: the stream read again from a midpoint gives exactly the tail.
    const mid = frames[Math.floor(frames.length / 2)];
    expect((await client.events(runId, mid.position)).map((f) => f.id)).toEqual(
      frames.slice(frames.indexOf(mid) + 1).map((f) => f.id),
    );
    // The in-flight invocation was answered once per idempotency key by the agent's replay cache or re-run, never completed twice as a node.
    expect(frames.find((f) => f.type === 'node_complete' && f.nodeId === first.nodeId)).toBeDefined();
    expect(detail.nodes.filter((n: any) => n.status === 'completed').length).toBeGreaterThanOrEqual(2);
  }, 200_000);
});
