import type { INestMicroservice } from '@nestjs/common';
import { connect } from 'nats';
import { listDeadLetters, type StoredDeadLetter, type StoredEvent } from '@flex/event-store';
import {
  createTestDatabase,
  natsTestUrl,
  parsePrometheusText,
  sampleSum,
  testPrefix,
  waitFor,
} from '@flex/testing';
import { overBudget, poisoned, POISON_CONSUMER, startPoisonConsumer } from './test-support/poison.consumer';
import {
  envelopeWithPolicies,
  HeldWriter,
  isTerminalEvent,
  REVIEW,
  startAgents,
  startRunEndsFlex,
  WAIT_MS,
  type RunEndsFlex,
  ended,
} from './test-support/run-ends.harness';

/** Three deliveries (200 ms, then 400 ms apart) before a message dead-letters. */
const FAST_DEAD_LETTERS = { FLEX_BUS_MAX_DELIVER: '3' };

interface Harness {
  start(): Promise<RunEndsFlex>;
  /** What the harness made besides Flex itself (a database, a JetStream stream). */
  cleanUp(): Promise<void>;
}

const embedded: Harness = {
  start: () => startRunEndsFlex(FAST_DEAD_LETTERS),
  cleanUp: async () => undefined,
};

/** The same embedded Flex on real servers: JetStream carries the events, Postgres stores them. */
function onJetStream(): Harness {
  const prefix = testPrefix('deadletter');
  let drop: () => Promise<void> = async () => undefined;
  return {
    start: async () => {
      const db = await createTestDatabase('dead_letter');
      drop = db.drop;
      return startRunEndsFlex({
        ...FAST_DEAD_LETTERS,
        FLEX_DATABASE_URL: db.url,
        FLEX_NATS_URL: natsTestUrl(),
        FLEX_NATS_PREFIX: prefix,
      });
    },
    cleanUp: async () => {
      const nc = await connect({ servers: natsTestUrl() });
      await (
        await nc.jetstreamManager()
      ).streams
        .delete(`${prefix.toUpperCase()}_EVENTS`)
        .catch(() => undefined);
      await nc.close();
      await drop();
    },
  };
}

describe.each<[string, () => Harness]>([
  ['store-backed bus (embedded)', () => embedded],
  ['JetStream and Postgres', onJetStream],
])('a message that dead-letters fails its run: %s', (_mode, harness) => {
  const setup = harness();
  const writer = new HeldWriter();
  let h: RunEndsFlex;
  let poison: INestMicroservice;
  let stopAgents: () => Promise<void>;

  beforeAll(async () => {
    // The bus says so on the console each time a poisoned delivery fails: expected here, so kept quiet.
    const warn = console.warn.bind(console);
    jest.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
      if (!String(args[0]).startsWith('[flex/bus] handler failed')) warn(...args);
    });
    h = await setup.start();
    stopAgents = await startAgents(h.flex, writer.definition);
    poison = await startPoisonConsumer(h.flex.runtime);
  }, 90_000);

  afterEach(() => writer.passAll());

  afterAll(async () => {
    jest.restoreAllMocks();
    await poison?.close();
    await stopAgents?.();
    await h?.close();
    await setup.cleanUp();
  });

  const deadLettersOf = async (runId: string): Promise<StoredDeadLetter[]> =>
    (await listDeadLetters(h.flex.runtime.database.db, { consumer: POISON_CONSUMER })).filter(
      (d) => d.event.streamId === `run-${runId}`,
    );
  /** The samples of `name` on this Flex's /metrics whose labels include `labels`, summed. */
  const metric = async (name: string, labels: Record<string, string>): Promise<number> =>
    sampleSum(parsePrometheusText(await h.flex.runtime.metrics.render()), name, labels);
  const start = (types: readonly string[], runtime: unknown[] = []) => {
    const envelope = envelopeWithPolicies(runtime);
    return h.client.start({ ...envelope, objective: poisoned(String(envelope.objective), types) });
  };

  it('a run waiting for a human whose messages no handler can take: run_failed dead_lettered, once for two dead letters', async () => {
    const consumer = { consumer: POISON_CONSUMER };
    const counts = () =>
      Promise.all([
        metric('flex_bus_dead_letters_total', consumer),
        metric('flex_bus_redeliveries_total', consumer),
        metric('flex_runs_failed_total', { reason: 'dead_lettered' }),
      ]);
    const before = await counts();
    const run = await start(['policy_triggered', 'hitl_request'], [REVIEW]);
    const frames = await ended(run);
    const failed = frames[frames.length - 1];
    expect(failed).toMatchObject({
      type: 'run_failed',
      payload: {
        code: 'dead_lettered',
        reason: expect.stringMatching(
          /^poison could not handle (policy_triggered|hitl_request) \(event .+\) after 3 deliveries: .*poisoned/,
        ),
        deadLetter: {
          consumer: POISON_CONSUMER,
          eventType: expect.stringMatching(/^(policy_triggered|hitl_request)$/),
          deliveryCount: 3,
        },
      },
    });
    const letters = await waitFor(
      async () => {
        const found = await deadLettersOf(run.runId);
        return found.length === 2 && found;
      },
      WAIT_MS,
      () => 'both poisoned messages should dead-letter',
    );
    expect(letters.map((d) => d.event.type).sort()).toEqual(['hitl_request', 'policy_triggered']);
    expect(letters.map((d) => d.event.id)).toContain(failed.payload.deadLetter.eventId);
    const stored = await h.events(run.runId);
    expect(stored.filter(isTerminalEvent).map((e) => e.type)).toEqual(['run_failed']);
    expect(stored[stored.length - 1].type).toBe('run_failed');
    const detail = await h.client.runDetailThrough(run.runId, failed.position);
    expect(detail.run).toMatchObject({ status: 'failed', failure: { code: 'dead_lettered' } });
    // On /metrics: two dead letters, each after two redeliveries (3 deliveries), one failed run.
    const [deadLetters, redeliveries, failedRuns] = (await counts()).map((n, i) => n - before[i]);
    expect({ deadLetters, redeliveries, failedRuns }).toEqual({
      deadLetters: 2,
      redeliveries: 4,
      failedRuns: 1,
    });
  }, 90_000);

  it('the node is named when the message has one; every node_start dead-letters, the run fails once', async () => {
    const run = await start(['node_start']);
    const frames = await ended(run);
    const failed = frames[frames.length - 1];
    expect(failed).toMatchObject({
      type: 'run_failed',
      payload: { code: 'dead_lettered', deadLetter: { eventType: 'node_start' } },
    });
    const stored = await h.events(run.runId);
    const poisonedStart = stored.find((e) => e.id === failed.payload.deadLetter.eventId) as StoredEvent;
    expect(failed.payload.nodeId).toBe((poisonedStart.payload as { nodeId: string }).nodeId);
    expect(failed.payload.reason).toContain(`node ${failed.payload.nodeId}`);
    writer.pass(run.runId);
    await waitFor(
      async () =>
        (await deadLettersOf(run.runId)).length === stored.filter((e) => e.type === 'node_start').length,
      WAIT_MS,
    );
    const after = await h.events(run.runId);
    expect(after.filter(isTerminalEvent).map((e) => e.type)).toEqual(['run_failed']);
    expect(after[after.length - 1].type).toBe('run_failed');
  }, 90_000);

  it('an evaluation over its budget is not retried: dead-lettered at its first delivery, the run fails with why', async () => {
    const envelope = envelopeWithPolicies([]);
    const run = await h.client.start({
      ...envelope,
      objective: overBudget(String(envelope.objective), ['node_start']),
    });
    const frames = await ended(run);
    const failed = frames[frames.length - 1];
    expect(failed).toMatchObject({
      type: 'run_failed',
      payload: {
        code: 'dead_lettered',
        reason: expect.stringMatching(
          /^poison could not handle node_start \(event .+\) after 1 deliveries: .*evaluation budget of 100000 operations/,
        ),
        deadLetter: { consumer: POISON_CONSUMER, eventType: 'node_start', deliveryCount: 1 },
      },
    });
    writer.pass(run.runId);
    const stored = await h.events(run.runId);
    expect(stored.filter(isTerminalEvent).map((e) => e.type)).toEqual(['run_failed']);
  }, 90_000);

  it('never fails a run that has ended: a dead-lettered `complete` leaves the run complete', async () => {
    const run = await start(['complete']);
    writer.pass(run.runId);
    const frames = await ended(run);
    const complete = frames[frames.length - 1];
    expect(complete.type).toBe('complete');
    const [letter] = await waitFor(async () => {
      const found = await deadLettersOf(run.runId);
      return found.length > 0 && found;
    }, WAIT_MS);
    expect(letter.event.type).toBe('complete');
    const stored = await h.events(run.runId);
    expect(stored.filter(isTerminalEvent).map((e) => e.type)).toEqual(['complete']);
    expect((await h.client.runDetailThrough(run.runId, complete.position)).run.status).toBe('completed');
  }, 90_000);
});
