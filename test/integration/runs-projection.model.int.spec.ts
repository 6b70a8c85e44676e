import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { contentHash } from '@flex/contracts';
import type { NewEvent, Projection, StoredEvent } from '@flex/event-store';
import { createRunsProjection } from '@flex/read-models';
import { payloadOf } from '@flex/run-model';
import {
  expectedRunRows,
  openReadModelsDb,
  readRunRows,
  runnerFor,
  type ReadModelsDb,
  type RunRows,
} from '../../libs/read-models/src/runs.spec-helper';
import {
  LifecycleSystem,
  type AgentOutcome,
  type PlanOutcome,
} from '../../services/executor/src/test-support/lifecycle-model';

/** Scenarios per run of the spec (FLEX_PROJECTION_MODEL_RUNS for more). */
const RUNS = Number(process.env.FLEX_PROJECTION_MODEL_RUNS ?? 60);

/** One thing the world does to a run (on LifecycleSystem: the executor's real deciders, the real fold). */
type Step =
  | { do: 'agent'; index: number; outcome: AgentOutcome }
  | { do: 'resolve'; index: number; decision: 'approve' | 'reject' | 'bad' }
  | { do: 'trigger'; policyId: string }
  | { do: 'plan'; outcome: PlanOutcome }
  | { do: 'resume' | 'timer' | 'cancel' | 'restart' }
  | { do: 'duplicate'; index: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    do: fc.constant('agent' as const),
    index: fc.nat(),
    outcome: fc.constantFrom<AgentOutcome>('ok', 'ok', 'ok', 'low', 'fail', 'fatal', 'timeout', 'invalid'),
  }),
  fc.record({
    do: fc.constant('resolve' as const),
    index: fc.nat(),
    decision: fc.constantFrom('approve' as const, 'approve' as const, 'reject' as const, 'bad' as const),
  }),
  fc.record({
    do: fc.constant('trigger' as const),
    policyId: fc.constantFrom('hold', 'rethink', 'ask', 'gate'),
  }),
  fc.record({
    do: fc.constant('plan' as const),
    outcome: fc.constantFrom<PlanOutcome>('accept', 'accept', 'reject', 'error'),
  }),
  fc.record({
    do: fc.constantFrom('resume' as const, 'timer' as const, 'cancel' as const, 'restart' as const),
  }),
  fc.record({ do: fc.constant('duplicate' as const), index: fc.nat() }),
);

function act(system: LifecycleSystem, step: Step): void {
  switch (step.do) {
    case 'agent':
      return system.agentAnswers(step.index, step.outcome);
    case 'resolve':
      return void system.resolve(step.index, step.decision);
    case 'trigger':
      return void system.trigger(step.policyId);
    case 'plan':
      return system.planStep(step.outcome);
    case 'resume':
      return void system.resume();
    case 'timer':
      return system.timerFires();
    case 'cancel':
      return system.cancel();
    case 'restart':
      return system.restart();
    case 'duplicate':
      return system.duplicate(step.index);
  }
}

/** A run's history: what happens to it, then maybe a helpful world ends it (agents answer, operators approve). */
const history = fc.record({ steps: fc.array(step, { maxLength: 30 }), drive: fc.boolean() });

/**
 * Up to three runs at once, interleaved in the log: each history appended in chunks, round by round;
 * after each round some instance catches up (the long-lived one, a fresh one with a cold cache, or
 * the long-lived one failing once at `failAt` of the round's events: that batch rolls back).
 */
const scenario = fc.record({
  runs: fc.array(history, { minLength: 1, maxLength: 3 }),
  cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
  turns: fc.array(fc.constantFrom<Turn>('shared', 'shared', 'fresh', 'failing'), {
    minLength: 5,
    maxLength: 5,
  }),
  failAt: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
  batchSize: fc.integer({ min: 1, max: 8 }),
});
type Turn = 'shared' | 'fresh' | 'failing';
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

/** The model's planner leaves out the registry a real one attaches; the read model records its hash. */
const registry = { hash: contentHash([]), capabilities: [] };

/** The event as appended: a new id, the registry added to accepted plans, and the plan varied (below). */
function toNew(event: StoredEvent): NewEvent {
  const { type, metadata, timestamp } = event;
  return { id: randomUUID(), type, payload: payloadFor(event), metadata, timestamp };
}

/**
 * The model always plans the same nodes; an even plan version here drops the rationale node `r`
 * (its later events name a node no plan has), so rows come and go with the plan as they would.
 */
function payloadFor(event: StoredEvent): unknown {
  if (event.type === 'plan_generated') return { ...payloadOf(event, 'plan_generated'), registry };
  if (event.type !== 'plan_updated') return event.payload;
  const p = payloadOf(event, 'plan_updated');
  if (p.version % 2 === 1) return { ...p, registry };
  const nodes = p.plan.nodes.filter((n) => n.id !== 'r');
  const edges = p.plan.edges.filter((e) => e.from !== 'r' && e.to !== 'r');
  return { ...p, plan: { ...p.plan, nodes, edges }, registry };
}

function chunks<T>(items: readonly T[], cuts: readonly number[]): T[][] {
  const at = [...new Set(cuts.map((c) => Math.round(c * items.length)))].sort((a, b) => a - b);
  const out: T[][] = [];
  let from = 0;
  for (const to of [...at, items.length]) {
    if (to > from) out.push(items.slice(from, to));
    from = Math.max(from, to);
  }
  return out;
}

describe('runs read model: the rows of any run history are what a fold of evolveRun says (Postgres)', () => {
  let db: ReadModelsDb;
  /** The instance that stays up, as a process's would; a cache of 2 runs, so three at once evict. */
  const shared = createRunsProjection({ cacheSize: 2 });
  const runIds: string[] = [];

  beforeAll(async () => {
    db = await openReadModelsDb('postgres', 'runs_projection_model');
  });
  afterAll(() => db.close());

  /** Appends the runs' chunks round by round, each round caught up by its instance; returns the run ids. */
  async function project(histories: ReadonlyArray<readonly StoredEvent[]>, how: Scenario): Promise<string[]> {
    const runs = histories.map((events) => ({
      runId: `model_${randomUUID().replace(/-/g, '')}`,
      chunks: chunks(events.map(toNew), how.cuts),
      version: 0,
    }));
    runIds.push(...runs.map((r) => r.runId));
    for (let round = 0; runs.some((r) => r.chunks.length > round); round++) {
      let appended = 0;
      for (const run of runs) {
        const chunk = run.chunks[round] ?? [];
        if (chunk.length === 0) continue;
        const expectedVersion = run.version === 0 ? 'no_stream' : run.version;
        await db.store.append(`run-${run.runId}`, chunk, { expectedVersion });
        run.version += chunk.length;
        appended += chunk.length;
      }
      await catchUp(how, how.turns[round % how.turns.length], appended);
    }
    return runs.map((r) => r.runId);
  }

  async function catchUp(how: Scenario, turn: Turn, appended: number): Promise<void> {
    if (turn === 'failing') {
      const nth = 1 + Math.floor(how.failAt * appended);
      const failing = runnerFor(db, failingOnce(shared, nth), how.batchSize);
      await expect(failing.catchUpThrough(await db.store.headPosition())).rejects.toMatchObject({
        code: 'PROJECTION_FAILED',
      });
    }
    const projection = turn === 'fresh' ? createRunsProjection() : shared;
    // Through the head: a plain catch-up stops short while another test's transaction is open.
    expect(await runnerFor(db, projection, how.batchSize).catchUpThrough(await db.store.headPosition())).toBe(
      true,
    );
  }

  it('incrementally, whatever the interleaving, batches, instances, evictions and rolled-back batches', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (how) => {
        const histories = how.runs.map(({ steps, drive }) => {
          const system = new LifecycleSystem();
          for (const one of steps) act(system, one);
          if (drive) system.drive();
          return system.events;
        });
        for (const runId of await project(histories, how)) {
          const stored = await db.store.readStream(`run-${runId}`);
          expect(await readRunRows(db, runId)).toEqual(expectedRunRows(runId, stored));
        }
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('rebuilt from position 0, with a warm, a cold or no cache: the same rows as incrementally', async () => {
    expect(runIds.length).toBeGreaterThan(0);
    const rowsOf = async (): Promise<RunRows[]> => Promise.all(runIds.map((runId) => readRunRows(db, runId)));
    const incremental = await rowsOf();
    for (const projection of [shared, createRunsProjection(), createRunsProjection({ cacheSize: 0 })]) {
      await runnerFor(db, projection, 64).rebuild('runs');
      expect(await rowsOf()).toEqual(incremental);
    }
  }, 120_000);
});

/** The projection, failing after its writes on the `nth` event it applies (the batch rolls back), once. */
function failingOnce(inner: Projection, nth: number): Projection {
  let seen = 0;
  return {
    name: inner.name,
    reset: (trx) => inner.reset(trx),
    async apply(trx, event) {
      await inner.apply(trx, event);
      if (++seen === nth) throw new Error('the batch fails after this event was applied');
    },
  };
}
