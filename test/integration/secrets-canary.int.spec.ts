import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { connect } from 'nats';
import { startAgent, type AgentHandle } from '@flex/agent-sdk';
import { agentInvokeSubject } from '@flex/bus';
import { listDeadLetters } from '@flex/event-store';
import { loadConfig } from '@flex/runtime';
import { createTestDatabase, natsTestUrl, parseLogFrames, testPrefix, waitFor } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import {
  poisoned,
  POISON_CONSUMER,
  startPoisonConsumer,
} from '../../apps/flex/src/embedded/test-support/poison.consumer';
import {
  allCanaries,
  CANARY_CAPABILITY,
  canaryAgents,
  canaryEnvelope,
  captureOutput,
  describeSearch,
  cliSinks,
  databaseSinks,
  expectAgentsGotOnlyWhatTheyAsked,
  expectRunRecordedTheLeaks,
  hitsIn,
  httpSinks,
  makeCanaries,
  type Seen,
  type Sink,
} from './secrets-canary';
import { natsSinks, recordNats, type NatsRecording } from './nats-recorder';
import { fromReadableSpan, spanText } from '../trace-spans';

const TOKEN = 'canary-client';
const WAIT_MS = 60_000;

interface Mode {
  env(): Promise<Record<string, string>>;
  nats: boolean;
  cleanUp(): Promise<void>;
}

const embedded: Mode = { env: async () => ({}), nats: false, cleanUp: async () => undefined };

/** The same embedded Flex on real servers: JetStream carries the events, NATS the invocations. */
function onPostgresAndJetStream(): Mode {
  const prefix = testPrefix('secrets');
  let drop = async (): Promise<void> => undefined;
  return {
    nats: true,
    env: async () => {
      const db = await createTestDatabase('secrets_canary');
      drop = async () => db.drop();
      return { FLEX_DATABASE_URL: db.url, FLEX_NATS_URL: natsTestUrl(), FLEX_NATS_PREFIX: prefix };
    },
    cleanUp: async () => {
      const nc = await connect({ servers: natsTestUrl() });
      await (await nc.jetstreamManager()).streams.delete(`${prefix.toUpperCase()}_EVENTS`).catch(() => false);
      await nc.close();
      await drop();
    },
  };
}

/**
 * The canary test (issue 12 point 4) on the real embedded app: secrets planted four ways, the run
 * driven to its end through an agent that asks for one and leaks it twice, then every sink searched.
 */
describe.each<[string, () => Mode]>([
  ['embedded (PGlite, in-process bus)', () => embedded],
  ['embedded on Postgres and JetStream', onPostgresAndJetStream],
])('secrets never leave the choke point: %s', (_name, makeMode) => {
  const mode = makeMode();
  const seen: Seen[] = [];
  let output: ReturnType<typeof captureOutput> | undefined;
  let flex: EmbeddedFlex;
  let agents: AgentHandle[] = [];
  let poison: { close(): Promise<void> } | undefined;
  let recording: NatsRecording | undefined;
  let figures = '';
  const spans = new InMemorySpanExporter();

  beforeAll(async () => {
    output = captureOutput();
    const env = await mode.env();
    if (mode.nats) recording = await recordNats(natsTestUrl());
    const config = loadConfig({
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_LOG_LEVEL: 'debug',
      FLEX_BUS_MAX_DELIVER: '3',
      PORT: '0',
      ...env,
    });
    // Traced: the asking agent's span is recorded while the secret is in its invocation.
    flex = await startEmbedded({ config, dataDir: null, agents: false, traceExporter: spans });
    poison = await startPoisonConsumer(flex.runtime);
    const opts = { messaging: flex.runtime.messaging, prefix: flex.runtime.prefix };
    agents = await Promise.all(canaryAgents(seen).map((a) => startAgent(a, opts)));
    await Promise.all(agents.map((a) => a.ready));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await poison?.close();
    await flex?.close();
    await recording?.stop();
    output?.stop();
    await mode.cleanUp();
    if (figures) console.info(`${_name}: ${figures}`);
  });

  it('secrets reach the asking agent and no table, stream, answer, CLI line, log or message', async () => {
    const canaries = makeCanaries();
    // The run's `complete` also dead-letters (a consumer cannot take it): a dead letter is searched too.
    const envelope = canaryEnvelope(canaries, poisoned('', ['complete']));
    const res = await fetch(`${flex.url}/api/v1/flex/run.stream`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${TOKEN}`,
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
      },
      body: JSON.stringify(envelope),
    });
    const runStream = await res.text();
    const runId = res.headers.get('x-flex-run-id') ?? '';
    expect({ status: res.status, ended: /event: (\w+)\n[^\n]*\n*$/.exec(runStream)?.[1] }).toEqual({
      status: 200,
      ended: 'complete',
    });
    const events = await flex.runtime.store.readStream(`run-${runId}`);
    expectRunRecordedTheLeaks(events);
    expectAgentsGotOnlyWhatTheyAsked(seen, canaries);
    await waitFor(
      async () =>
        (await listDeadLetters(flex.runtime.database.db, { consumer: POISON_CONSUMER })).some(
          (d) => d.event.streamId === `run-${runId}` && d.event.type === 'complete',
        ),
      WAIT_MS,
      () => 'the poisoned complete should dead-letter',
    );

    const sinks: Sink[] = [
      { name: 'POST run.stream', text: runStream },
      ...(await httpSinks(flex.url, TOKEN, runId)),
      ...(await cliSinks(flex.url, TOKEN, runId)),
      ...(await databaseSinks(flex.runtime.database.db)),
      { name: 'this process: stdout, stderr, console', text: output?.text() ?? '' },
      { name: 'spans', text: spanText(spans.getFinishedSpans().map(fromReadableSpan)) },
      ...(recording ? natsSinks(recording, agentInvokeSubject(flex.runtime.prefix, CANARY_CAPABILITY)) : []),
    ];
    // The search finds what is there: the secret store holds the run's four secrets, sealed.
    expect(
      sinks.find((s) => s.name.startsWith('table secrets'))?.text.match(new RegExp(runId, 'g')),
    ).toHaveLength(4);
    expect(
      hitsIn([{ name: 'control', text: JSON.stringify(seen) }], allCanaries(canaries)).length,
    ).toBeGreaterThan(0);
    // …and the capture holds this process's logs (the bus logs each poisoned delivery it retries).
    expect(output?.text()).toContain(`poisoned complete of run-${runId}`);
    // …its structured lines about the run, and the run's stream its live log frames.
    for (const name of ['flex_capability_dispatch_error', 'flex_validation_failed', 'flex_node_complete'])
      expect(output?.text()).toContain(`"event":"${name}"`);
    expect(parseLogFrames(runStream).map((f) => f.event)).toEqual(
      expect.arrayContaining(['flex_capability_dispatch_error', 'flex_validation_failed']),
    );
    // …and the spans hold the run's trace, the asking agent's invocations included.
    const traced = spans.getFinishedSpans().filter((span) => span.attributes['flex.run.id'] === runId);
    expect(
      traced.filter((span) => span.attributes['flex.capability.id'] === CANARY_CAPABILITY).length,
    ).toBeGreaterThanOrEqual(3);
    expect(hitsIn(sinks, allCanaries(canaries))).toEqual([]);
    if (recording) {
      // The one message that must carry it: the invocation of the agent whose facet asks.
      const asked = recording.messages.filter(
        (m) => m.subject === agentInvokeSubject(flex.runtime.prefix, CANARY_CAPABILITY),
      );
      expect(asked.length).toBeGreaterThanOrEqual(3);
      for (const m of asked)
        expect(
          hitsIn([{ name: m.subject, text: m.data }], allCanaries(canaries)).map((h) => h.canary),
        ).toEqual([canaries.credential]);
    }
    figures = describeSearch(sinks, recording?.messages.length);
  }, 120_000);
});
