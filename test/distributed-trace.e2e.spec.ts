import { join } from 'node:path';
import { generateSecretKey } from '@flex/runtime';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  natsTestUrl,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForActiveCapabilities,
  waitForHttp,
  type ManagedProcess,
} from '@flex/testing';
import { allCanaries, canaryEnvelope, hitsIn, makeCanaries } from './integration/secrets-canary';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver';
import { orphans, parentNames, type TraceSpan } from './trace-spans';

const ROOT = join(__dirname, '..');
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'] as const;
const TOKEN = 'trace-e2e-client';
const CALLER_TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const CALLER_SPAN = '1122334455667788';
/** Every process a run crosses: the five services and the reference agents' process. */
const PROCESSES = [...SERVICES.map((s) => `flex-${s}`), 'flex-agents-reference'].sort();

/**
 * One trace per run in distributed mode: the services and the agents as separate processes, over
 * real NATS JetStream and Postgres, exporting OTLP/HTTP (JSON) to a receiver this test runs.
 */
describe('tracing: one trace across every process (distributed, OTLP/HTTP)', () => {
  const procs: ManagedProcess[] = [];
  let receiver: OtlpReceiver;
  let db: { url: string; drop(): Promise<void> };
  let gatewayPort = 0;
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`).join('\n');

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    db = await createTestDatabase('trace_e2e');
    const prefix = testPrefix('trace');
    const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' };
    const nats = { FLEX_NATS_URL: natsTestUrl(), FLEX_NATS_PREFIX: prefix, FLEX_LOG_LEVEL: 'warn' };
    const common = {
      ...otel,
      ...nats,
      FLEX_DATABASE_URL: db.url,
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_SECRET_KEY: generateSecretKey(),
    };
    // All at once (each migrates forward idempotently, as a cluster's instances do).
    await Promise.all(
      SERVICES.map(async (name) => {
        const port = await freePort();
        if (name === 'gateway') gatewayPort = port;
        const script = join(ROOT, `services/${name}/dist/main.js`);
        procs.push(startNodeProcess(name, script, { ...common, PORT: String(port) }, ROOT));
        await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
      }),
    );
    const agents = join(ROOT, 'agents/reference/dist/main.js');
    procs.push(startNodeProcess('agents', agents, { ...otel, ...nats }, ROOT));
    const client = new FlexClient(`http://127.0.0.1:${gatewayPort}`, TOKEN);
    await waitForActiveCapabilities(client, 3, 60_000, logs);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    await receiver?.close();
    await db?.drop();
  });

  it('every process, the agents’ included, adds its spans to the caller’s trace; no secret is in any of them', async () => {
    const canaries = makeCanaries();
    const res = await fetch(`http://127.0.0.1:${gatewayPort}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`,
      },
      body: JSON.stringify(canaryEnvelope(canaries)),
    });
    const stream = await res.text();
    if (!/event: complete\n/.test(stream)) throw new Error(`the run did not complete:\n${stream}\n${logs()}`);

    // Each process exports in batches (every 5 s): wait until all have and the tree is whole.
    const trace = () => receiver.spans().filter((s) => s.traceId === CALLER_TRACE);
    const services = (spans: TraceSpan[]) => [...new Set(spans.map((s) => s.service))].sort();
    const spans = await waitFor(
      async () => {
        const now = trace();
        const whole = orphans(now, CALLER_SPAN).length === 0 && now.some((s) => s.name === 'run.stream');
        return whole && PROCESSES.every((p) => services(now).includes(p)) ? now : undefined;
      },
      30_000,
      () =>
        `processes so far: ${services(trace()).join(', ')}; orphans: ${orphans(trace(), CALLER_SPAN).length}`,
    );
    expect(services(spans)).toEqual(PROCESSES);
    const named = (name: string) => spans.filter((s) => s.name === name).map((s) => s.service);
    expect(new Set(named('run.stream'))).toEqual(new Set(['flex-gateway']));
    expect(new Set(named('plan.draft'))).toEqual(new Set(['flex-planner']));
    expect(new Set(named('plan.prove'))).toEqual(new Set(['flex-validator']));
    expect(new Set(named('node.attempt'))).toEqual(new Set(['flex-executor']));
    expect(new Set(named('agent.invoke'))).toEqual(new Set(['flex-agents-reference']));
    expect(new Set(named('registry.snapshot'))).toEqual(new Set(['flex-registry']));
    expect(named('bus.publish').length).toBeGreaterThan(0);
    // Parents across processes: through event metadata (planner, validator) and NATS headers (the agents).
    expect(new Set(parentNames(spans, 'plan.draft'))).toEqual(new Set(['run.stream']));
    expect(new Set(parentNames(spans, 'agent.invoke'))).toEqual(new Set(['node.attempt']));
    expect(spans.filter((s) => s.parentSpanId === undefined)).toEqual([]);

    expect(receiver.bodies.length).toBeGreaterThan(0);
    expect(
      hitsIn([{ name: 'OTLP export', text: receiver.bodies.join('\n') }], allCanaries(canaries)),
    ).toEqual([]);
  }, 90_000);
});
