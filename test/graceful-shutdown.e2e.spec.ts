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
  type Invocation,
} from './distributed-harness';

const TOKEN = 'drain-client-token';
/** The run's first agent call takes this long: SIGTERM lands while it is in flight. */
const AGENT_DELAY_MS = 5_000;

interface Service {
  proc: ManagedProcess;
  url: string;
}

/**
 * Graceful shutdown (issue 16 §4), on real processes over NATS JetStream and Postgres, with an agent
 * that takes seconds per call. On SIGTERM a service says `stopping` on /readyz at once, finishes the
 * work in hand and exits 0 within FLEX_SHUTDOWN_GRACE_MS; a second SIGTERM, or the grace running
 * out, exits 1 at once. A gateway ends its event streams cleanly, and the client carries on at
 * another gateway with Last-Event-ID, missing nothing.
 */
describe('graceful shutdown (separate processes)', () => {
  const procs: ManagedProcess[] = [];
  let db: { url: string; drop(): Promise<void> };
  let common: Record<string, string>;
  let dir: string;
  const gateways: Service[] = [];
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`).join('\n');

  const start = async (name: string, env: Record<string, string> = {}): Promise<Service> => {
    const port = await freePort();
    const proc = startService(name, { ...common, PORT: String(port), ...env });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/readyz`, 60_000, logs);
    return { proc, url };
  };
  const client = (gateway: Service) => new FlexClient(gateway.url, TOKEN);
  const invocations = () => readInvocations(join(dir, 'invocations.jsonl'));
  /** A new run, and the first agent call it makes once that call is under way. */
  const runInFlight = async (): Promise<{ runId: string; call: Invocation }> => {
    const before = new Set(invocations().map((i) => i.key));
    const res = await fetch(`${gateways[0].url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: client(gateways[0]).headers({ Accept: 'text/event-stream' }),
      body: JSON.stringify(sampleEnvelope()),
    });
    expect(res.status).toBe(200);
    void res.text().catch(() => undefined);
    const runId = res.headers.get('x-flex-run-id') as string;
    const call = await waitFor(
      async () =>
        invocations().find((i) => i.event === 'start' && !before.has(i.key) && i.key.startsWith(runId)),
      60_000,
      logs,
    );
    return { runId, call };
  };
  const exited = (proc: ManagedProcess): Promise<{ code: number | null; at: number }> =>
    new Promise((resolve) => {
      if (proc.child.exitCode !== null) return resolve({ code: proc.child.exitCode, at: Date.now() });
      proc.child.once('exit', (code) => resolve({ code, at: Date.now() }));
    });
  const readyz = async (service: Service) => {
    const res = await fetch(`${service.url}/readyz`);
    return { status: res.status, body: (await res.json()) as any };
  };
  const completed = (gateway: Service, runId: string) =>
    waitFor(
      async () => {
        const r = await client(gateway).json('GET', `/api/v1/flex/runs/${runId}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.run?.status) ? r.body : undefined;
      },
      120_000,
      logs,
    );

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'flex-drain-'));
    db = await createTestDatabase('graceful_shutdown');
    const prefix = testPrefix('drain');
    common = serviceEnv(db.url, prefix, `${TOKEN}:client`);
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    const started = ['gateway-1', 'gateway-2', 'registry', 'planner', 'validator'].map((name) => start(name));
    gateways.push(...(await Promise.all(started)).slice(0, 2));
    procs.push(
      startSlowAgents(prefix, AGENT_DELAY_MS, join(dir, 'invocations.jsonl'), [SAMPLE_FIRST_CAPABILITY]),
    );
    await client(gateways[1]).waitForActiveCapabilities(3, 60_000, logs);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('executor: SIGTERM mid-node → /readyz 503 stopping at once, the node completes, exit 0 within the grace', async () => {
    const graceMs = 20_000;
    const executor = await start('executor-1', { FLEX_SHUTDOWN_GRACE_MS: String(graceMs) });
    const { runId, call } = await runInFlight();
    const gone = exited(executor.proc);
    const signalledAt = Date.now();
    executor.proc.child.kill('SIGTERM');

    // Not ready from the moment the signal lands, while the agent call is still under way.
    const stopping = await waitFor(async () => {
      const r = await readyz(executor);
      return r.status === 503 ? r : undefined;
    }, 2_000);
    expect(stopping.body).toMatchObject({ status: 'stopping', service: 'executor' });
    expect(stopping.body.checks.shutdown).toEqual({
      ok: false,
      detail: expect.stringMatching(/shutting down/),
    });
    expect(invocations().some((i) => i.event === 'end' && i.key === call.key)).toBe(false);

    const exit = await gone;
    expect({ code: exit.code, output: exit.code === 0 ? '' : executor.proc.output() }).toEqual({
      code: 0,
      output: '',
    });
    expect(exit.at - signalledAt).toBeLessThan(graceMs);
    const end = invocations().find((i) => i.event === 'end' && i.key === call.key);
    expect(end).toBeDefined();
    expect(end!.at).toBeLessThanOrEqual(exit.at);
    // The drained executor committed the node's outcome before it went: no executor runs now.
    const frames: Frame[] = await client(gateways[1]).events(runId);
    expect(frames.filter((f) => f.type === 'node_complete' && f.nodeId === call.nodeId)).toHaveLength(1);

    // ...and acknowledged its message: another executor finishes the run without calling that agent again.
    await start('executor-2');
    expect((await completed(gateways[1], runId)).run.status).toBe('completed');
    expect(invocations().filter((i) => i.event === 'start' && i.key === call.key)).toHaveLength(1);
    const all = await client(gateways[1]).events(runId);
    for (const nodeId of new Set(all.filter((f) => f.type === 'node_complete').map((f) => f.nodeId)))
      expect(all.filter((f) => f.type === 'node_complete' && f.nodeId === nodeId)).toHaveLength(1);
  }, 200_000);

  it('gateway: SIGTERM ends its event streams cleanly; the client carries on at another gateway with Last-Event-ID', async () => {
    const { runId } = await runInFlight();
    const [leaving, staying] = gateways;
    const watcher = await client(leaving).follow(runId);
    expect(watcher.status).toBe(200);
    await waitFor(async () => watcher.frames.length > 0, 10_000);
    const gone = exited(leaving.proc);
    const signalledAt = Date.now();
    leaving.proc.child.kill('SIGTERM');

    const seen = await watcher.ended; // resolves on a clean end of the stream, rejects on a reset
    expect(seen.map((f) => f.type)).not.toContain('complete');
    const exit = await gone;
    expect(exit.code).toBe(0);
    expect(exit.at - signalledAt).toBeLessThan(10_000);

    const rest = await client(staying).follow(runId, seen[seen.length - 1].position);
    const after = await rest.ended;
    expect(after[after.length - 1].type).toBe('complete');
    const stored = await client(staying).events(runId);
    expect([...seen, ...after].map((f) => f.id)).toEqual(stored.map((f) => f.id));
    gateways.splice(0, 1);
  }, 200_000);

  it('a second SIGTERM while draining exits 1 at once, leaving the call in flight', async () => {
    const executor = await start('executor-3', { FLEX_SHUTDOWN_GRACE_MS: '20000' });
    const others = procs.filter((p) => p.name.startsWith('executor-') && p !== executor.proc);
    await Promise.all(others.map((p) => p.kill('SIGKILL')));
    const { call } = await runInFlight();
    const gone = exited(executor.proc);
    executor.proc.child.kill('SIGTERM');
    await waitFor(async () => (await readyz(executor)).status === 503, 2_000);
    const againAt = Date.now();
    executor.proc.child.kill('SIGTERM');
    const exit = await gone;
    expect(exit.code).toBe(1);
    expect(exit.at - againAt).toBeLessThan(2_500); // not the drain: the call in flight had seconds to go
    expect(invocations().some((i) => i.event === 'end' && i.key === call.key && i.at <= exit.at)).toBe(false);
    expect(executor.proc.output()).toMatch(/SIGTERM again while stopping/);
  }, 200_000);

  it('the grace running out exits 1, leaving the call in flight', async () => {
    const graceMs = 1_000;
    const executor = await start('executor-4', { FLEX_SHUTDOWN_GRACE_MS: String(graceMs) });
    const { call } = await runInFlight();
    const gone = exited(executor.proc);
    const signalledAt = Date.now();
    executor.proc.child.kill('SIGTERM');
    const exit = await gone;
    expect(exit.code).toBe(1);
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(graceMs - 50);
    expect(exit.at - signalledAt).toBeLessThan(graceMs + 2_500);
    expect(invocations().some((i) => i.event === 'end' && i.key === call.key && i.at <= exit.at)).toBe(false);
    expect(executor.proc.output()).toMatch(/still stopping after 1000 ms/);
  }, 200_000);
});
