import fc from 'fast-check';
import type { StoredEvent } from '@flex/event-store';
import { payloadOf, refusalOf } from '@flex/run-model';
import { LifecycleSystem, type AgentOutcome, type PlanOutcome } from '../test-support/lifecycle-model';

/** The model is the system itself: every command applies to any state (doing nothing when it cannot). */
type Model = Record<string, never>;
type Cmd = fc.Command<Model, LifecycleSystem>;

/** One step of the world around a run; after it the invariants of docs/lifecycle.md must hold. */
abstract class Step implements Cmd {
  check(): boolean {
    return true;
  }
  run(_model: Model, system: LifecycleSystem): void {
    this.apply(system);
    system.checkMoving();
  }
  abstract apply(system: LifecycleSystem): void;
  abstract toString(): string;
}

class AgentAnswers extends Step {
  constructor(
    readonly index: number,
    readonly outcome: AgentOutcome,
  ) {
    super();
  }
  apply(system: LifecycleSystem): void {
    system.agentAnswers(this.index, this.outcome);
  }
  toString(): string {
    return `agent#${this.index}:${this.outcome}`;
  }
}

/** Two agent calls in flight answer before the executor handles either answer (parallel branches). */
class AgentsTogether extends Step {
  constructor(
    readonly answers: ReadonlyArray<[number, AgentOutcome]>,
    readonly meanwhile: { index: number; decision: 'approve' | 'reject' } | null,
  ) {
    super();
  }
  apply(system: LifecycleSystem): void {
    system.agentsAnswerTogether(this.answers, this.meanwhile ?? undefined);
  }
  toString(): string {
    const decided = this.meanwhile ? `+hitl#${this.meanwhile.index}:${this.meanwhile.decision}` : '';
    return `agents(${this.answers.map(([i, o]) => `#${i}:${o}`).join(',')})${decided}`;
  }
}

class Resolve extends Step {
  constructor(
    readonly index: number,
    readonly decision: 'approve' | 'reject' | 'bad',
  ) {
    super();
  }
  apply(system: LifecycleSystem): void {
    system.resolve(this.index, this.decision);
  }
  toString(): string {
    return `hitl#${this.index}:${this.decision}`;
  }
}

class Trigger extends Step {
  constructor(readonly policyId: string) {
    super();
  }
  apply(system: LifecycleSystem): void {
    system.trigger(this.policyId);
  }
  toString(): string {
    return `trigger:${this.policyId}`;
  }
}

class PlanStep extends Step {
  constructor(readonly outcome: PlanOutcome) {
    super();
  }
  apply(system: LifecycleSystem): void {
    system.planStep(this.outcome);
  }
  toString(): string {
    return `plan:${this.outcome}`;
  }
}

class Duplicate extends Step {
  constructor(readonly index: number) {
    super();
  }
  apply(system: LifecycleSystem): void {
    system.duplicate(this.index);
  }
  toString(): string {
    return `duplicate#${this.index}`;
  }
}

/** A step with no argument. */
class Simple extends Step {
  constructor(
    readonly name: string,
    readonly action: (system: LifecycleSystem) => void,
  ) {
    super();
  }
  apply(system: LifecycleSystem): void {
    this.action(system);
  }
  toString(): string {
    return this.name;
  }
}

const concurrentResumes = new Simple('resume×2', (system) => {
  const before = system.events.filter((e) => e.type === 'run_resumed').length;
  const outcomes = system.concurrentResumes();
  const after = system.events.filter((e) => e.type === 'run_resumed').length;
  expect(after - before).toBe(outcomes.filter((o) => !refusalOf(o)).length);
  expect(after - before).toBeLessThanOrEqual(1);
});

const agent = (outcomes: AgentOutcome[]) =>
  fc.tuple(fc.nat(), fc.constantFrom(...outcomes)).map(([i, o]) => new AgentAnswers(i, o));
const together = fc
  .tuple(
    fc.array(fc.tuple(fc.nat(), fc.constantFrom<AgentOutcome>('ok', 'ok', 'ok', 'low', 'fail')), {
      minLength: 1,
      maxLength: 3,
    }),
    fc.option(
      fc.record({ index: fc.nat(), decision: fc.constantFrom<'approve' | 'reject'>('approve', 'reject') }),
    ),
  )
  .map(([answers, meanwhile]) => new AgentsTogether(answers, meanwhile));
const resolve = fc
  .tuple(fc.nat(), fc.constantFrom<'approve' | 'reject' | 'bad'>('approve', 'approve', 'reject', 'bad'))
  .map(([i, d]) => new Resolve(i, d));
const trigger = fc.constantFrom('hold', 'hold', 'rethink', 'ask', 'gate').map((id) => new Trigger(id));

/** What can happen next, weighted by repetition toward what moves a run and what crosses its paths. */
const commands = [
  agent(['ok', 'ok', 'ok', 'low', 'fail', 'fatal', 'timeout', 'invalid', 'unreachable', 'gone']),
  agent(['ok', 'ok', 'fail']),
  agent(['ok']),
  together,
  together,
  resolve,
  resolve,
  trigger,
  trigger,
  fc
    .constantFrom<PlanOutcome>('accept', 'accept', 'accept', 'reject', 'reject', 'error')
    .map((o) => new PlanStep(o)),
  // The writer failing for good walks its repair chain: a drop-in, a replan from the failure, its HITL fallback.
  fc.constant(new Simple('writer:fatal', (system) => system.nodeAnswers('w', 'fatal'))),
  // The writer unreachable past the budget walks the same chain; its HITL fallback may then be withdrawn.
  fc.constant(new Simple('writer:gone', (system) => system.nodeAnswers('w', 'gone'))),
  // Gone on its drop-in too, and the replan that asks finds no plan: its human fallback stands in for it.
  fc.constant(
    new Simple('writer:gone for good', (system) => {
      system.nodeAnswers('w', 'gone');
      system.nodeAnswers('w', 'gone');
      system.planStep('error');
    }),
  ),
  fc.constant(new Simple('agents back', (system) => system.agentsBack())),
  fc.constant(new Simple('resume', (system) => system.resume())),
  fc.constant(concurrentResumes),
  fc.constant(new Simple('timer', (system) => system.timerFires())),
  fc.nat().map((i) => new Duplicate(i)),
  fc.constant(new Simple('restart', (system) => system.restart())),
  fc
    .constantFrom(false, false, false, false, false, false, false, true)
    .map(
      (cancel) =>
        new Simple(cancel ? 'cancel' : 'timer', (system) => (cancel ? system.cancel() : system.timerFires())),
    ),
];

/** The count the normal test command runs (FLEX_MODEL_RUNS overrides it, e.g. for a long soak). */
const RUNS = Number(process.env.FLEX_MODEL_RUNS ?? 1_000);

/**
 * Random interleavings of everything that can happen to a run (agents answering, failing, timing
 * out; operators approving, rejecting, pausing, resuming, twice at once, replanning, asking,
 * cancelling; the planner accepting, rejecting or finding no plan; timers; duplicate deliveries;
 * restarts) against the executor's real deciders and the real fold. After every step: a run that has
 * not ended has something that will move it; on every append: nothing follows the terminal event, no
 * completed node starts again, nothing starts unless the run is running, never `complete` with a HITL
 * request pending; at the end: the fold of the store equals the live state, and a helpful world (agents
 * answer, operators approve and resume) brings the run to exactly one terminal event. A failure
 * prints fast-check's seed and the shrunk command list.
 */
describe('the run lifecycle as a state machine (fast-check command model over the real deciders)', () => {
  it(`${RUNS} random sequences keep every rule`, () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(
        fc.commands(commands, { maxCommands: 60, size: 'medium' }),
        fc.constantFrom(3, 4),
        fc.option(fc.integer(), { freq: 4 }),
        (cmds, attempts, race) => {
          const system = new LifecycleSystem(undefined, undefined, attempts);
          // Mostly the executor's deliveries race (any order); sometimes they come in order.
          if (race !== null) system.raceDeliveries(race);
          fc.modelRun(() => ({ model: {}, real: system }), cmds);
          system.checkStream();
          count(seen, `before the helpful world: ${system.live.status}`);
          system.drive();
          system.checkStream();
          for (const e of system.events) count(seen, statOf(e));
        },
      ),
      { numRuns: RUNS },
    );
    // FLEX_MODEL_STATS=1 shows what the sequences reached (event types, where the runs stood).
    if (process.env.FLEX_MODEL_STATS) console.log(Object.fromEntries([...seen].sort()));
  }, 60_000);
});

function count(seen: Map<string, number>, key: string): void {
  seen.set(key, (seen.get(key) ?? 0) + 1);
}

/** An event type, with who refused a plan, why a run failed and what asked a replan: the paths worth seeing reached. */
function statOf(event: StoredEvent): string {
  switch (event.type) {
    case 'plan_rejected':
      return `plan_rejected by ${payloadOf(event, 'plan_rejected').source ?? 'validator'}`;
    case 'run_failed':
      return `run_failed ${payloadOf(event, 'run_failed').code}`;
    case 'plan_requested': {
      const kind = payloadOf(event, 'plan_requested').replan?.trigger.kind;
      return kind === undefined ? event.type : `plan_requested replan ${String(kind)}`;
    }
    default:
      return event.type;
  }
}
