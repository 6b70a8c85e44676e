import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { connect, type NatsConnection } from 'nats';
import { startAgent, type AgentHandle } from '@flex/agent-sdk';
import { NatsMessaging } from '@flex/bus';
import { generateSecretKey } from '@flex/runtime';
import {
  createTestDatabase,
  freePort,
  natsTestUrl,
  parseLogFrames,
  parseSse,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { canaryAgents, canaryEnvelope, makeCanaries, type Seen } from './integration/secrets-canary';
import { sampleEnvelope } from './sample-run';

const ROOT = join(__dirname, '..');
const TOKEN = 'logs-e2e-client';
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'] as const;

type Line = Record<string, any>;

/** A process whose stdout is kept whole, line by line. */
interface Printing {
  proc: ManagedProcess;
  stdout: string[];
}

function start(name: string, script: string, env: Record<string, string>): Printing {
  const proc = startNodeProcess(name, script, env, ROOT);
  const stdout: string[] = [];
  proc.child.stdout?.on('data', (c: Buffer) => stdout.push(c.toString()));
  return { proc, stdout };
}

/** Every line a process printed on stdout, each parsed: a line that is not JSON fails the test here. */
function jsonLines(p: Printing): Line[] {
  return p.stdout
    .join('')
    .split('\n')
    .filter((l) => l !== '' && !/^(Flex is ready| {2})/.test(l))
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`${p.proc.name} printed a line that is not JSON: ${l}`);
      }
    });
}

function newTraceparent(): { header: string; traceId: string } {
  const traceId = randomBytes(16).toString('hex');
  return { header: `00-${traceId}-${randomBytes(8).toString('hex')}-01`, traceId };
}

/** A runtime policy that fires on every node completion: a `policy_triggered` (and its emit) per node. */
function withEmitPolicy(envelope: Record<string, any>): Record<string, any> {
  envelope.policies = {
    ...envelope.policies,
    runtime: [
      { id: 'log-emit', trigger: { kind: 'onNodeComplete' }, action: { type: 'emit', event: 'node_done' } },
    ],
  };
  return envelope;
}

async function runStream(baseUrl: string, envelope: unknown, traceparent: string) {
  const res = await fetch(`${baseUrl}/api/v1/flex/run.stream`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      'Content-Type': 'application/json',
      Accept: 'text/event-stream',
      traceparent,
    },
    body: JSON.stringify(envelope),
  });
  const text = await res.text();
  return { status: res.status, text, runId: res.headers.get('x-flex-run-id') ?? '' };
}

async function getEvents(baseUrl: string, runId: string, lastEventId?: number): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/flex/runs/${runId}/events`, {
    headers: {
      Authorization: `Bearer ${TOKEN}`,
      Accept: 'text/event-stream',
      ...(lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) }),
    },
  });
  return res.text();
}

/** The last SSE frame of a stream's text: its terminal event, never a log line after it. */
function lastBlock(text: string): string | undefined {
  return text.trimEnd().split('\n\n').at(-1);
}

/**
 * The lines of `printing` once their stdout has caught up with the run (a pipe's data can reach this
 * process after the stream's end): the run's `flex_run_complete` line and every line `frames` saw.
 */
async function linesOfRun(printing: Printing[], runId: string, frames: Line[]): Promise<Line[]> {
  return waitFor(
    async () => {
      const all = printing.flatMap((p) => jsonLines(p));
      const framed = new Set(all.map((l) => JSON.stringify(asFramed(l))));
      const done =
        named(all, runId, 'flex_run_complete').length > 0 &&
        frames.every((f) => framed.has(JSON.stringify(f)));
      return done && all;
    },
    10_000,
    () =>
      `stdout never showed the run's lines:\n${printing.map((p) => p.proc.output().slice(-2000)).join('\n')}`,
  );
}

/** A line as a log frame carries it: an error's stack stays in the process's log. */
function asFramed(line: Line): Line {
  const framed = structuredClone(line);
  for (const key of ['err', 'error'])
    if (framed[key] && typeof framed[key] === 'object') delete framed[key].stack;
  return framed;
}

/** The lines of one run, by legacy name. */
function named(lines: Line[], runId: string, event: string): Line[] {
  return lines.filter((l) => l.runId === runId && l.event === event);
}

/**
 * Structured logs as an operator reads them (issue 15 point 3): every process prints JSON lines
 * only, with the spec's legacy names, run and node ids and the run's trace ids; an SSE reader of
 * the run also gets them as live `log` frames, which carry no `id:` and change nothing it resumes from.
 */
describe('structured logs: distributed (separate processes, Postgres and JetStream)', () => {
  const procs = new Map<string, Printing & { port: number }>();
  const prefix = testPrefix('logs_e2e');
  const seen: Seen[] = [];
  let db: { url: string; drop(): Promise<void> };
  let nc: NatsConnection;
  let agents: AgentHandle[] = [];
  const output = () => [...procs].map(([n, p]) => `--- ${n} ---\n${p.proc.output().slice(-3000)}`).join('\n');

  beforeAll(async () => {
    db = await createTestDatabase('logs_e2e');
    const env = {
      FLEX_DATABASE_URL: db.url,
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: prefix,
      FLEX_LOG_LEVEL: 'info',
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_SECRET_KEY: generateSecretKey(),
    };
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    await Promise.all(
      SERVICES.map(async (name) => {
        const port = await freePort();
        const script = join(ROOT, `services/${name}/dist/main.js`);
        procs.set(name, { ...start(name, script, { ...env, PORT: String(port) }), port });
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, output);
      }),
    );
    nc = await connect({ servers: natsTestUrl(), name: 'logs-e2e-agents' });
    const messaging = new NatsMessaging(nc);
    agents = await Promise.all(canaryAgents(seen).map((a) => startAgent(a, { messaging, prefix })));
    await Promise.all(agents.map((a) => a.ready));
  }, 240_000);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await nc?.close();
    await Promise.all([...procs.values()].map((p) => p.proc.kill('SIGTERM')));
    const jsm = await connect({ servers: natsTestUrl() });
    await (await jsm.jetstreamManager()).streams.delete(`${prefix.toUpperCase()}_EVENTS`).catch(() => false);
    await jsm.close();
    await db?.drop();
  });

  it('a run with a failed attempt, a refused output and a policy: legacy-named JSON lines with trace ids, and log frames', async () => {
    const gateway = `http://127.0.0.1:${procs.get('gateway')?.port}`;
    const trace = newTraceparent();
    const canaries = makeCanaries();
    const run = await runStream(gateway, withEmitPolicy(canaryEnvelope(canaries)), trace.header);
    const events = parseSse(run.text);
    if (events.at(-1)?.type !== 'complete')
      throw new Error(`the run did not complete:\n${run.text}\n${output()}`);
    const { runId } = run;

    // Every process printed JSON lines only (no console text, no multi-line stacks).
    const frames = parseLogFrames(run.text);
    await linesOfRun([...procs.values()], runId, frames);
    const lines = new Map([...procs].map(([name, p]) => [name, jsonLines(p)]));
    const all = [...lines.values()].flat();
    for (const [name, printed] of lines) expect(printed.every((l) => l.service === name)).toBe(true);

    const requested = named(all, runId, 'flex_plan_requested');
    const completed = named(all, runId, 'flex_node_complete');
    const triggered = named(all, runId, 'flex_policy_triggered');
    const refused = named(all, runId, 'flex_validation_failed');
    expect(requested[0]).toMatchObject({ service: 'gateway', level: 'info', attempt: 1, reason: 'initial' });
    expect(completed.length).toBeGreaterThanOrEqual(2);
    for (const l of completed)
      expect(l).toMatchObject({
        service: 'executor',
        nodeId: expect.any(String),
        durationMs: expect.any(Number),
      });
    expect(triggered.length).toBe(completed.length);
    for (const l of triggered) expect(l).toMatchObject({ policyId: 'log-emit', action: 'emit' });
    expect(refused).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        scope: 'capability_output',
        attempt: 2,
        nodeId: expect.any(String),
      }),
    );
    for (const l of [...requested, ...completed, ...triggered, ...refused]) {
      expect(l).toMatchObject({ trace_id: trace.traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
      expect(l.time).toMatch(/^\d{4}-\d\d-\d\dT/);
    }

    // The executor's dispatch lines around each agent call, the first attempt's failure included.
    const dispatch = (event: string) => named(lines.get('executor') ?? [], runId, event);
    expect(dispatch('flex_capability_dispatch_start').length).toBeGreaterThanOrEqual(4);
    expect(dispatch('flex_capability_dispatch_error')).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        attempt: 1,
        capabilityId: expect.any(String),
        trace_id: trace.traceId,
      }),
    );
    expect(dispatch('flex_capability_dispatch_complete').length).toBeGreaterThanOrEqual(2);

    // The same lines reached the run's stream as live frames (those written once the stream was
    // following: the gateway's plan_requested line comes before): no id, never among its events.
    expect(frames.map((f) => f.event)).toEqual(
      expect.arrayContaining([
        'flex_node_complete',
        'flex_validation_failed',
        'flex_capability_dispatch_error',
      ]),
    );
    for (const f of frames) {
      expect(f.runId).toBe(runId);
      expect(['info', 'warn', 'error', 'fatal']).toContain(f.level);
      expect(all.map(asFramed)).toContainEqual(f);
    }
    expect(run.text).not.toMatch(/id: [^\n]*\nevent: log\ndata: \{"level"/);
    for (let i = 1; i < events.length; i++)
      expect(events[i].position).toBeGreaterThan(events[i - 1].position);
    expect(lastBlock(run.text)).toMatch(/^id: \d+\nevent: complete\n/);

    // Last-Event-ID: a reader resuming after the 3rd event gets exactly the events after it.
    const replay = parseSse(await getEvents(gateway, runId));
    expect(replay.map((f) => f.id)).toEqual(events.map((f) => f.id));
    const resumed = parseSse(await getEvents(gateway, runId, events[2].position));
    expect(resumed.map((f) => f.id)).toEqual(events.slice(3).map((f) => f.id));
  }, 120_000);
});

describe('structured logs: embedded (npm start as one process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'flex-logs-'));
  let flex: Printing;
  let baseUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    flex = start('flex', join(ROOT, 'apps/flex/dist/embedded/main.js'), {
      PORT: String(port),
      FLEX_DATA_DIR: dataDir,
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_LOG_LEVEL: 'info',
    });
    await waitForHttp(`${baseUrl}/readyz`, 90_000, () => flex.proc.output());
  }, 120_000);

  afterAll(async () => {
    await flex?.proc.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs while a run executes: the same legacy-named lines, and log frames on a watcher’s stream', async () => {
    const trace = newTraceparent();
    const started = fetch(`${baseUrl}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        traceparent: trace.header,
      },
      body: JSON.stringify(withEmitPolicy(sampleEnvelope())),
    });
    const res = await started;
    const runId = res.headers.get('x-flex-run-id') ?? '';
    // A watcher joining while the run executes gets the events from the start and live lines from now.
    const watched = getEvents(baseUrl, runId);
    const text = await res.text();
    const watcher = await watched;
    const events = parseSse(text);
    expect(events.at(-1)?.type).toBe('complete');
    expect(lastBlock(text)).toMatch(/^id: \d+\nevent: complete\n/);
    expect(lastBlock(watcher)).toMatch(/^id: \d+\nevent: complete\n/);
    expect(parseSse(watcher).map((f) => f.id)).toEqual(events.map((f) => f.id));

    // The banner the user reads is plain text; everything else is a JSON line.
    const frames = parseLogFrames(text);
    const lines = await linesOfRun([flex], runId, frames);
    for (const event of [
      'flex_plan_requested',
      'flex_node_complete',
      'flex_policy_triggered',
      'flex_run_complete',
    ])
      expect(named(lines, runId, event)[0]).toMatchObject({ service: 'flex', trace_id: trace.traceId });
    expect(named(lines, runId, 'flex_capability_dispatch_complete').length).toBeGreaterThanOrEqual(2);
    expect(frames.map((f) => f.event)).toEqual(
      expect.arrayContaining(['flex_node_complete', 'flex_policy_triggered']),
    );
    for (const f of frames) expect(lines.map(asFramed)).toContainEqual(f);
  }, 90_000);

  it('the CLI is unaffected by log frames: `flex run --json` prints events only, `flex replay --verify` holds', async () => {
    const file = join(dataDir, 'envelope.json');
    writeFileSync(file, JSON.stringify(withEmitPolicy(sampleEnvelope())));
    const env = { ...process.env, FLEX_URL: baseUrl, FLEX_TOKEN: TOKEN };
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [join(ROOT, 'bin/flex.js'), ...args], { cwd: ROOT, env });
    const run = await cli('run', file, '--json');
    const printed = run.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Line);
    expect(printed.at(-1)).toMatchObject({ type: 'complete', position: expect.any(Number) });
    for (const frame of printed) {
      expect(frame).toMatchObject({
        type: expect.any(String),
        id: expect.any(String),
        position: expect.any(Number),
      });
      expect(frame).not.toHaveProperty('msg');
    }
    const runId = printed[0].runId as string;
    // The run's lines were flowing while the CLI followed it (this process logs at info).
    expect(named(await linesOfRun([flex], runId, []), runId, 'flex_node_complete').length).toBeGreaterThan(0);
    const replay = await cli('replay', runId, '--verify');
    expect(replay.stderr).toMatch(/verify: ok/);
  }, 90_000);
});
