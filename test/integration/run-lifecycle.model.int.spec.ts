import fc from 'fast-check';
import { defineAgent } from '@flex/agent-sdk';
import { contentGeneratorAgent } from '@flex/agents-reference';
import { INTERNAL_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '@flex/contracts';
import { loadCheckpoint, type StoredEvent } from '@flex/event-store';
import { evolveRun, initialRunState, pendingHitlRequests, type RunState } from '@flex/run-model';
import { waitFor, type FlexClient, type LiveStream } from '@flex/testing';
import type { EmbeddedFlex } from '../../apps/flex/src/embedded/embedded';
import { envelopeWithPolicies, runEvents, startFlex, startTestAgents } from './embedded-run';
import { expectEndedOnce, WAIT_MS } from './lifecycle';

/** Sequences against the embedded system (the pure model runs 1,000; these check the real adapters and streams). */
const RUNS = Number(process.env.FLEX_EMBEDDED_MODEL_RUNS ?? 15);
const isTerminal = (type: string) => (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
const isInternal = (type: string) => (INTERNAL_EVENT_TYPES as readonly string[]).includes(type);

/** The reference writer; in a `[flaky]` run each node's first attempt fails (retried). */
const writer = defineAgent({
  registration: contentGeneratorAgent.registration,
  handle: async (invocation, ctx) => {
    if (invocation.context.objective.includes('[flaky]') && invocation.attempt === 1) {
      throw Object.assign(new Error('first attempts fail'), { code: 'flaky', retryable: true });
    }
    return contentGeneratorAgent.handle(invocation, ctx);
  },
});

/** Policies a run may carry, so its paths cross pauses and human gates; operators fire the manual ones. */
const CANDIDATES = {
  review: {
    id: 'review',
    trigger: { kind: 'onStart' },
    action: { type: 'hitl', rationale: 'check the plan' },
  },
  brand: {
    id: 'brand',
    trigger: { kind: 'onNodeComplete', selector: { kind: 'structuring' } },
    action: { type: 'pause', reason: 'brand check' },
  },
  lane: {
    id: 'lane',
    trigger: { kind: 'onNodeComplete', selector: { nodeId: 'execution-1-lane-2' } },
    action: { type: 'hitl', rationale: 'check lane 2' },
  },
  second: {
    id: 'second',
    trigger: { kind: 'onNodeComplete', selector: { nodeId: 'execution-1' } },
    action: { type: 'hitl', approveAction: { type: 'replan' }, rejectAction: { type: 'pause' } },
  },
} as const;
const MANUAL = [
  { id: 'hold', trigger: { kind: 'manual' }, action: { type: 'pause', reason: 'operator hold' } },
  { id: 'rethink', trigger: { kind: 'manual' }, action: { type: 'replan' } },
  { id: 'ask', trigger: { kind: 'manual' }, action: { type: 'hitl', rationale: 'operator asks' } },
];

interface Real {
  flex: EmbeddedFlex;
  client: FlexClient;
  operator: FlexClient;
  runId: string;
}

type Cmd = fc.AsyncCommand<Record<string, never>, Real>;

/** The run's events once every service has handled all of them (the run rests: it ended, or waits for a person). */
async function quiet(real: Real): Promise<StoredEvent[]> {
  const db = real.flex.runtime.database.db;
  return waitFor(
    async () => {
      const events = await runEvents(real.flex, real.runId);
      const last = events[events.length - 1].position;
      for (const name of ['planner', 'validator', 'executor'])
        if ((await loadCheckpoint(db, `bus:${name}`)).position < last) return undefined;
      return (await runEvents(real.flex, real.runId)).length === events.length ? events : undefined;
    },
    WAIT_MS,
    () => `run ${real.runId} never rested`,
  );
}

/** A run at rest has ended, or waits for a person: paused, or a HITL request pending. Never `complete` with one pending. */
function checkRest(events: readonly StoredEvent[]): RunState {
  let state: RunState = initialRunState();
  for (const event of events) {
    if (
      state.status !== 'none' &&
      (state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled')
    ) {
      throw new Error(`${event.type} after the run ended`);
    }
    if (event.type === 'complete') expect(pendingHitlRequests(state)).toEqual([]);
    state = evolveRun(state, event);
  }
  const resting = state.status === 'paused' || pendingHitlRequests(state).length > 0;
  if (!resting && !['completed', 'failed', 'cancelled'].includes(state.status))
    throw new Error(`run rests ${state.status} with nothing to move it`);
  return state;
}

abstract class Step implements Cmd {
  check(): boolean {
    return true;
  }
  async run(_model: Record<string, never>, real: Real): Promise<void> {
    await this.apply(real, checkRest(await quiet(real)));
    checkRest(await quiet(real));
  }
  abstract apply(real: Real, state: RunState): Promise<void>;
  abstract toString(): string;
}

class Decide extends Step {
  constructor(
    readonly index: number,
    readonly decision: 'approve' | 'reject',
  ) {
    super();
  }
  async apply(real: Real, state: RunState): Promise<void> {
    const pending = pendingHitlRequests(state);
    if (pending.length === 0) return;
    const requestId = pending[this.index % pending.length];
    await real.operator.json('POST', '/api/v1/flex/hitl/resolve', {
      runId: real.runId,
      requestId,
      decision: this.decision,
    });
  }
  toString(): string {
    return `hitl#${this.index}:${this.decision}`;
  }
}

class Trigger extends Step {
  constructor(readonly policyId: string) {
    super();
  }
  async apply(real: Real): Promise<void> {
    await real.operator.json('POST', `/api/v1/flex/runs/${real.runId}/policies/${this.policyId}/trigger`);
  }
  toString(): string {
    return `trigger:${this.policyId}`;
  }
}

class Resume extends Step {
  constructor(readonly twice: boolean) {
    super();
  }
  async apply(real: Real, state: RunState): Promise<void> {
    const version = state.status === 'none' ? 1 : state.planVersion;
    // Both name the pause they saw: the run may pause again between the two.
    const pauseId = state.status === 'paused' ? state.pause.eventId : undefined;
    const streams = await Promise.all(
      Array.from({ length: this.twice ? 2 : 1 }, () => real.client.resume(real.runId, version, pauseId)),
    );
    // Of two resumes of one pause exactly one wins; of resumes of a run not paused, none.
    expect(streams.filter((s) => s.status === 200)).toHaveLength(state.status === 'paused' ? 1 : 0);
    for (const s of streams) s.close();
  }
  toString(): string {
    return this.twice ? 'resume×2' : 'resume';
  }
}

/** Play a helpful world until the run ends: resume what is paused, approve what is asked. */
async function drive(real: Real): Promise<StoredEvent[]> {
  for (let step = 0; step < 40; step++) {
    const events = await quiet(real);
    const state = checkRest(events);
    if (state.status === 'completed' || state.status === 'failed' || state.status === 'cancelled')
      return events;
    if (state.status === 'paused') await new Resume(false).apply(real, state);
    else await new Decide(0, 'approve').apply(real, state);
  }
  throw new Error(`run ${real.runId} did not end`);
}

const commands = [
  fc
    .tuple(fc.nat(), fc.constantFrom<'approve' | 'reject'>('approve', 'approve', 'approve', 'reject'))
    .map(([i, d]) => new Decide(i, d)),
  fc.constantFrom('hold', 'hold', 'rethink', 'ask').map((id) => new Trigger(id)),
  fc.boolean().map((twice) => new Resume(twice)),
];

/**
 * A few random sequences against the embedded system (real HTTP, store, bus, planner, validator,
 * executor, agents): operators decide, pause, replan, ask and resume (twice at once) while the run
 * rests; runs carry random policies that pause them and hold them on human gates. After every step
 * the run rests ended or waiting for a person, never `complete` with a request pending; at the end
 * it has ended once, a live `GET runs/:id/events` stream opened at the start saw every event once
 * and in order, and the read model agrees with the fold of the store.
 */
describe('the run lifecycle on the embedded system (fast-check, async command model)', () => {
  let flex: EmbeddedFlex;
  let client: FlexClient;
  let operator: FlexClient;
  let stopAgents: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    ({ flex, client, operator } = await startFlex());
    stopAgents = await startTestAgents(flex, [writer]);
  }, 60_000);

  afterAll(async () => {
    await stopAgents?.();
    await flex?.close();
  });

  it(`${RUNS} random sequences end once, streamed in order`, async () => {
    const policies = fc.subarray(Object.keys(CANDIDATES) as Array<keyof typeof CANDIDATES>, { minLength: 1 });
    const scenario = fc.record({ policies, flaky: fc.boolean(), seven: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(
        scenario,
        fc.commands(commands, { maxCommands: 8 }),
        async ({ policies: chosen, flaky, seven }, cmds) => {
          const envelope = envelopeWithPolicies([...chosen.map((k) => CANDIDATES[k]), ...MANUAL]);
          if (flaky) envelope.objective = `${envelope.objective} [flaky]`;
          if (seven) sevenVariants(envelope);
          const started: LiveStream & { runId: string } = await client.start(envelope);
          const real: Real = { flex, client, operator, runId: started.runId };
          const watcher = await client.follow(real.runId);
          try {
            await fc.asyncModelRun(() => ({ model: {}, real }), cmds);
            const events = await drive(real);
            expectEndedOnce(
              events,
              events[events.length - 1].type as 'complete' | 'run_failed' | 'run_cancelled',
            );
            const seen = await watcher.ended;
            expect(seen.map((f) => f.id)).toEqual(events.filter((e) => !isInternal(e.type)).map((e) => e.id));
            expect(isTerminal(seen[seen.length - 1].type)).toBe(true);
            const detail = (await client.json('GET', `/api/v1/flex/runs/${real.runId}`)).body;
            expect(detail.run.status).toBe(events.reduce(evolveRun, initialRunState()).status);
          } finally {
            watcher.close();
            started.close();
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 180_000);
});

function sevenVariants(envelope: Record<string, any>): void {
  envelope.outputContract.schema.properties.copyVariants.minItems = 7;
  envelope.outputContract.schema.properties.copyVariants.maxItems = 7;
  envelope.inputs.variantCount = 7;
  delete envelope.specialInstructions;
}
