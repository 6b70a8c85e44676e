import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startAgent, type AgentHandle } from '@flex/agent-sdk';
import { agentInvokeSubject, NatsMessaging } from '@flex/bus';
import { createDatabase, EventStore, type FlexDatabase } from '@flex/event-store';
import { generateSecretKey } from '@flex/runtime';
import {
  createTestDatabase,
  freePort,
  natsTestUrl,
  parseLogFrames,
  startNodeProcess,
  testPrefix,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { natsSinks, recordNats, type NatsRecording } from './integration/nats-recorder';
import {
  allCanaries,
  CANARY_CAPABILITY,
  canaryAgents,
  canaryEnvelope,
  cliSinks,
  databaseSinks,
  describeSearch,
  expectAgentsGotOnlyWhatTheyAsked,
  expectRunRecordedTheLeaks,
  hitsIn,
  httpSinks,
  makeCanaries,
  type Seen,
  type Sink,
} from './integration/secrets-canary';

const ROOT = join(__dirname, '..');
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'] as const;
const TOKEN = 'canary-e2e-client';

interface Service {
  proc: ManagedProcess;
  /** Everything it printed, kept whole (ManagedProcess keeps only a tail). */
  printed: string[];
  port: number;
}

/**
 * The canary test in distributed mode: five service processes over real Postgres and JetStream,
 * every process's stdout and stderr kept, every NATS message recorded (issue 12 point 4).
 */
describe('secrets never leave the choke point: distributed (separate processes)', () => {
  const services = new Map<string, Service>();
  const seen: Seen[] = [];
  const prefix = testPrefix('secrets_e2e');
  let db: { url: string; drop(): Promise<void> };
  let database: FlexDatabase;
  let nc: NatsConnection;
  let agents: AgentHandle[] = [];
  let recording: NatsRecording;
  const logs = () =>
    [...services].map(([n, s]) => `--- ${n} ---\n${s.proc.output().slice(-3000)}`).join('\n');

  const start = async (name: string, env: Record<string, string>) => {
    const port = await freePort();
    const proc = startNodeProcess(name, join(ROOT, `services/${name.split(':')[0]}/dist/main.js`), {
      ...env,
      PORT: String(port),
    });
    const printed: string[] = [];
    proc.child.stdout?.on('data', (c: Buffer) => printed.push(c.toString()));
    proc.child.stderr?.on('data', (c: Buffer) => printed.push(c.toString()));
    services.set(name, { proc, printed, port });
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
  };

  beforeAll(async () => {
    db = await createTestDatabase('secrets_e2e');
    recording = await recordNats(natsTestUrl());
    const common = {
      FLEX_DATABASE_URL: db.url,
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: prefix,
      FLEX_LOG_LEVEL: 'debug',
      // Every line about the run also goes out as a live `log` frame: the frames are searched too.
      FLEX_LOG_FRAME_LEVEL: 'debug',
      FLEX_API_TOKENS: `${TOKEN}:client`,
    };
    const key = generateSecretKey();
    // All at once (each migrates forward idempotently, as a cluster's instances do), and a gateway
    // without the key: it must refuse secrets rather than store them in the clear.
    await Promise.all([
      ...SERVICES.map((name) => start(name, { ...common, FLEX_SECRET_KEY: key })),
      start('gateway:keyless', common),
    ]);
    nc = await connect({ servers: natsTestUrl(), name: 'canary-agents' });
    const messaging = new NatsMessaging(nc);
    agents = await Promise.all(canaryAgents(seen).map((a) => startAgent(a, { messaging, prefix })));
    await Promise.all(agents.map((a) => a.ready));
    database = await createDatabase({ url: db.url, poolSize: 2 });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await nc?.close();
    await Promise.all([...services.values()].map((s) => s.proc.kill('SIGTERM')));
    await recording?.stop();
    await database?.close();
    const jsm = await connect({ servers: natsTestUrl() });
    await (await jsm.jetstreamManager()).streams.delete(`${prefix.toUpperCase()}_EVENTS`).catch(() => false);
    await jsm.close();
    await db?.drop();
  });

  const baseUrl = (name: string) => `http://127.0.0.1:${services.get(name)?.port}`;

  it('a gateway without FLEX_SECRET_KEY refuses secrets (503, the paths named), stores nothing', async () => {
    const res = await fetch(`${baseUrl('gateway:keyless')}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(canaryEnvelope(makeCanaries())),
    });
    expect(res.status).toBe(503);
    const body: any = await res.json();
    expect(body.error).toMatchObject({ code: 'secrets_unavailable' });
    expect(body.error.details.paths).toContain('inputs.credentials');
    expect(await database.db.selectFrom('events').select('id').where('type', '=', 'start').execute()).toEqual(
      [],
    );
    expect(await database.db.selectFrom('secrets').select('run_id').execute()).toEqual([]);
  }, 60_000);

  it('the asking agent gets the secret; no process, table, stream, answer or message has one', async () => {
    const canaries = makeCanaries();
    const url = baseUrl('gateway');
    const res = await fetch(`${url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      body: JSON.stringify(canaryEnvelope(canaries)),
    });
    const runStream = await res.text();
    const runId = res.headers.get('x-flex-run-id') ?? '';
    if (!/event: complete\n/.test(runStream))
      throw new Error(`the run did not complete:\n${runStream}\n${logs()}`);
    const events = await new EventStore(database.db).readStream(`run-${runId}`);
    expectRunRecordedTheLeaks(events);
    expectAgentsGotOnlyWhatTheyAsked(seen, canaries);
    const asked = agentInvokeSubject(prefix, CANARY_CAPABILITY);
    const sinks: Sink[] = [
      { name: 'POST run.stream', text: runStream },
      ...(await httpSinks(url, TOKEN, runId)),
      ...(await cliSinks(url, TOKEN, runId)),
      ...(await databaseSinks(database.db)),
      ...[...services].map(([name, s]) => ({ name: `${name}: stdout and stderr`, text: s.printed.join('') })),
      ...natsSinks(recording, asked),
    ];
    expect(hitsIn(sinks, allCanaries(canaries))).toEqual([]);
    // The search finds what is there: the invocations of the agent that asks carry the credential.
    const invocations = recording.messages.filter((m) => m.subject === asked);
    expect(invocations.length).toBeGreaterThanOrEqual(3);
    for (const m of invocations)
      expect(hitsIn([{ name: m.subject, text: m.data }], allCanaries(canaries)).map((h) => h.canary)).toEqual(
        [canaries.credential],
      );
    expect(services.get('executor')?.printed.join('')).toMatch(/"level":"(debug|info|warn)"/);
    // …and the logs and log frames searched hold the run's lines (the leaky attempts' included).
    const executorLines = services.get('executor')?.printed.join('') ?? '';
    for (const name of ['flex_capability_dispatch_error', 'flex_validation_failed', 'flex_node_complete'])
      expect(executorLines).toContain(`"event":"${name}"`);
    expect(parseLogFrames(runStream).map((f) => f.event)).toEqual(
      expect.arrayContaining(['flex_capability_dispatch_error', 'flex_validation_failed']),
    );
    console.info(`distributed: ${describeSearch(sinks, recording.messages.length)}`);
  }, 120_000);
});
