import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineAgent, startAgent, type AgentDefinition, type AgentHandle } from '@flex/agent-sdk';
import { contentGeneratorAgent, referenceAgents, startReferenceAgents } from '@flex/agents-reference';
import { TERMINAL_EVENT_TYPES } from '@flex/contracts';
import { loadCheckpoint, type StoredEvent } from '@flex/event-store';
import { loadConfig } from '@flex/runtime';
import { FlexClient, waitFor, type Frame, type LiveStream } from '@flex/testing';
import { startEmbedded, type EmbeddedFlex } from '../embedded';

/** Generous for a loaded two-core box, far below "never". */
export const WAIT_MS = 45_000;

export const WRITER = contentGeneratorAgent.registration.capabilityId;

/** Tokens of the harness: two clients (one owns the runs), an operator and an agent. */
const TOKENS = 'ends-client:client,ends-other:client,ends-operator:operator,ends-agent:agent';

export interface RunEndsFlex {
  flex: EmbeddedFlex;
  client: FlexClient;
  other: FlexClient;
  operator: FlexClient;
  agent: FlexClient;
  events(runId: string): Promise<StoredEvent[]>;
  /** Poll the run's stored events until one matches. */
  waitForEvent(runId: string, match: (e: StoredEvent) => boolean): Promise<StoredEvent>;
  close(): Promise<void>;
}

/** An embedded Flex without agents (the test starts its own); `env` on top of the harness defaults. */
export async function startRunEndsFlex(env: Record<string, string> = {}): Promise<RunEndsFlex> {
  const config = loadConfig({ FLEX_API_TOKENS: TOKENS, FLEX_LOG_LEVEL: 'silent', PORT: '0', ...env });
  const flex = await startEmbedded({ config, dataDir: null, agents: false });
  const events = (runId: string) => flex.runtime.store.readStream(`run-${runId}`);
  const waitForEvent = (runId: string, match: (e: StoredEvent) => boolean) =>
    waitFor(
      async () => (await events(runId)).find(match),
      WAIT_MS,
      () => `no matching event on run ${runId}`,
    );
  return {
    flex,
    client: new FlexClient(flex.url, 'ends-client'),
    other: new FlexClient(flex.url, 'ends-other'),
    operator: new FlexClient(flex.url, 'ends-operator'),
    agent: new FlexClient(flex.url, 'ends-agent'),
    events,
    waitForEvent,
    close: () => flex.close(),
  };
}

/** The stream's frames once the server ended it; fails the test, naming what came, if it stays open. */
export async function ended(stream: LiveStream): Promise<Frame[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the stream did not end: ${JSON.stringify(stream.frames.map((f) => f.type))}`)),
      WAIT_MS,
    );
  });
  try {
    return await Promise.race([stream.ended, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The sample envelope (examples/envelope.json) with runtime policies. */
export function envelopeWithPolicies(runtime: unknown[] = []): Record<string, unknown> {
  const raw = JSON.parse(readFileSync(join(__dirname, '../../../../../examples/envelope.json'), 'utf8'));
  return { ...raw, policies: { ...raw.policies, runtime } };
}

/** A policy that holds the run for an operator right after the plan is accepted. */
export const REVIEW = {
  id: 'review',
  trigger: { kind: 'onStart' },
  action: { type: 'hitl', rationale: 'look first' },
};

export const isTerminalEvent = (e: { type: string }) =>
  (TERMINAL_EVENT_TYPES as readonly string[]).includes(e.type);

/** A promise with its resolve, for tests that say when something may go on. */
interface Latch {
  promise: Promise<void>;
  open(): void;
}

function latch(): Latch {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * The reference writer, except that every run's invocation waits until the test lets it go:
 * `pass(runId)` to answer at once, `release(runId)` to answer and wait until it has.
 */
export class HeldWriter {
  private readonly runs = new Map<string, { invoked: Latch; released: Latch; answered: Latch }>();

  readonly definition: AgentDefinition = defineAgent({
    registration: contentGeneratorAgent.registration,
    handle: async (invocation, ctx) => {
      const run = this.entry(invocation.runId);
      run.invoked.open();
      await run.released.promise;
      const output = await contentGeneratorAgent.handle(invocation, ctx);
      setImmediate(() => run.answered.open());
      return output;
    },
  });

  /** Resolves once the writer was invoked for the run. */
  invoked(runId: string): Promise<void> {
    return this.entry(runId).invoked.promise;
  }

  /** Let the run's invocations answer (now, or whenever they come). */
  pass(runId: string): void {
    this.entry(runId).released.open();
  }

  /** Let the run's invocation answer; resolves once it has returned its output. */
  async release(runId: string): Promise<void> {
    this.pass(runId);
    await this.entry(runId).answered.promise;
  }

  /** Let every run go (after a test: a held invocation would keep its delivery in flight). */
  passAll(): void {
    for (const runId of this.runs.keys()) this.pass(runId);
  }

  private entry(runId: string) {
    let run = this.runs.get(runId);
    if (!run) {
      run = { invoked: latch(), released: latch(), answered: latch() };
      this.runs.set(runId, run);
    }
    return run;
  }
}

/**
 * The reference agents on the embedded messaging, with `writer` in place of the reference writer
 * when given; resolves once all are registered, with what stops them.
 */
export async function startAgents(
  flex: EmbeddedFlex,
  writer?: AgentDefinition,
): Promise<() => Promise<void>> {
  const opts = { messaging: flex.runtime.messaging, prefix: flex.runtime.prefix };
  const others = referenceAgents
    .map((a) => a.registration.capabilityId)
    .filter((id) => !writer || id !== WRITER);
  const reference = await startReferenceAgents({ ...opts, only: others });
  const handles: AgentHandle[] = writer ? [await startAgent(writer, opts)] : [];
  await Promise.all([reference.ready, ...handles.map((h) => h.ready)]);
  return async () => {
    await Promise.all(handles.map((h) => h.stop()));
    await reference.stop();
  };
}

/**
 * Resolves once the embedded executor has settled every event up to `position` (its durable's
 * checkpoint passed it): whatever it was doing with them, it has done, appends included.
 */
export async function executorSettled(flex: EmbeddedFlex, position: number): Promise<void> {
  const db = flex.runtime.database.db;
  await waitFor(
    async () => (await loadCheckpoint(db, 'bus:executor')).position >= position,
    WAIT_MS,
    () => `executor not past ${position}`,
  );
}
