import type { EventPayload } from '@flex/contracts';
import type { CapabilityRegistration, PlanGraph, RuntimePolicy } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import {
  decideCancel,
  decideHitlResolve,
  decideHitlFollowUps,
  decideManualTrigger,
  resumeDecider,
  withFollowUps,
  evaluatePolicies,
  firingKey,
  evolveRun,
  initialRunState,
  isPlanned,
  isTerminal,
  payloadOf,
  pendingHitlRequests,
  replanForNodeFailure,
  replanInFlight,
  type ControlDecision,
  refusalOf,
  type PlanRequestAsked,
  type PolicyTriggerInput,
  type RunLimits,
  type RunState,
} from '@flex/run-model';
import type { AdvanceDecision } from '../run/advance.decide';
import { needsRegistry, wakeOf } from '../run/executor.decision';
import { decideNodeStart } from '../run/node-start.decide';
import { effectsOf } from '@flex/decider';
import { decideInvocation, type InvokeOutcome, type RetryPolicy } from '../run/invoke.decide';
import { decideAttempt } from '../run/unreachable.decide';
import { decideWithdrawal } from '../run/withdrawal.decide';
import { decideOnEvent, decideReaction, decideTimers } from '../run/run.decide';
import { brief, envelopeWith, qaFindings, variants } from './run.fixtures';

/** Strategy, then a writer and a rationale writer in parallel, then QA; a HITL fallback node stands by for the writer. */
export const modelPlan: PlanGraph = {
  planVersion: 1,
  nodes: [
    {
      id: 's',
      kind: 'structuring',
      label: 'Strategy',
      capabilityId: 'S.brief',
      inputFacets: ['objectiveBrief'],
      outputFacets: ['writerBrief'],
    },
    {
      id: 'w',
      kind: 'execution',
      label: 'Writer',
      capabilityId: 'W.write',
      inputFacets: ['writerBrief'],
      outputFacets: ['copyVariants'],
    },
    {
      id: 'r',
      kind: 'execution',
      label: 'Rationale',
      capabilityId: 'R.why',
      inputFacets: ['writerBrief'],
      outputFacets: ['strategicRationale'],
    },
    {
      id: 'q',
      kind: 'validation',
      label: 'QA',
      capabilityId: 'Q.review',
      inputFacets: ['copyVariants'],
      outputFacets: ['qaFindings'],
    },
    {
      id: 'fallback-w',
      kind: 'fallback',
      label: 'Operator',
      inputFacets: [],
      outputFacets: ['copyVariants'],
      fallbackFor: 'w',
    },
  ],
  edges: [
    { from: 's', to: 'w' },
    { from: 's', to: 'r' },
    { from: 'w', to: 'q' },
    { from: 'w', to: 'fallback-w' },
  ],
  metadata: { plannerId: 'model', plannerVersion: '1', determinism: 'full', inputHash: 'x'.repeat(64) },
};

const policy = (
  id: string,
  trigger: RuntimePolicy['trigger'],
  action: RuntimePolicy['action'],
): RuntimePolicy => ({ id, trigger, action });

/** The run's runtime policies: an approval on the parallel branch, a QA replan, and what operators fire by hand. */
export const modelPolicies: RuntimePolicy[] = [
  policy(
    'review',
    { kind: 'onNodeComplete', selector: { nodeId: 'r' } },
    { type: 'hitl', rationale: 'check the rationale' },
  ),
  policy(
    'low_qa',
    {
      kind: 'onNodeComplete',
      selector: { nodeId: 'q' },
      condition: { '<': [{ var: 'qaFindings.overallScore' }, 0.5] },
    },
    { type: 'replan' },
  ),
  policy('hold', { kind: 'manual' }, { type: 'pause', reason: 'operator hold' }),
  policy('rethink', { kind: 'manual' }, { type: 'replan' }),
  policy('ask', { kind: 'manual' }, { type: 'hitl', rationale: 'operator asks' }),
  policy(
    'gate',
    { kind: 'manual' },
    {
      type: 'hitl',
      approveAction: { type: 'replan' },
      rejectAction: { type: 'pause', reason: 'rejected gate' },
    },
  ),
];

const registration = (capabilityId: string, inputs: string[], outputs: string[]): CapabilityRegistration => ({
  capabilityId,
  agentType: 'ai',
  version: '1',
  displayName: capabilityId,
  summary: capabilityId,
  inputContract: inputs,
  outputContract: outputs,
});

/** What the registry answers: a drop-in writer, and one that needs other inputs (so a failure may replan). */
export const modelRegistry: CapabilityRegistration[] = [
  registration('W.alt', ['writerBrief'], ['copyVariants']),
  registration('W.other', ['objectiveBrief'], ['copyVariants']),
];

/** `unreachable`: nobody answered, within the budget (waited for); `gone`: nobody answered, budget spent. */
export type AgentOutcome = 'ok' | 'low' | 'fail' | 'fatal' | 'timeout' | 'invalid' | 'unreachable' | 'gone';

/** The unreachable budget the model's executor runs with. */
const UNREACHABLE_BUDGET_MS = 30_000;

/** The executor's event handlers, as `@EventPattern`s in ExecutorHandler. */
const EXECUTOR_EVENTS = new Set([
  'plan_generated',
  'plan_updated',
  'plan_rejected',
  'node_complete',
  'node_error',
  'validation_error',
  'hitl_resolved',
  'run_resumed',
  'node_start',
]);
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const accepted = { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
const rejected = { status: 'rejected', satisfactionScore: 0, failures: [], warnings: [], infos: [] };
const plannerError = { code: 'PLANNER_NO_CAPABILITIES', message: 'no plan', retryable: false, details: {} };

/** How the planner and the validator answer a plan request in one {@link LifecycleSystem.planStep}. */
export type PlanOutcome = 'accept' | 'reject' | 'error';

interface Decided {
  type: string;
  payload: unknown;
}

type Append = { appended: StoredEvent[]; duplicate: boolean; conflict: boolean };

/**
 * Flex in memory around the real pure code: the store (versions, idempotency keys, optimistic
 * concurrency), the executor's reactions (`decideReaction`, `decideInvocation` and the adapter's
 * rules: a duplicate delivery, a wait held by a delayed redelivery), the gateway's commands
 * (`decideHitlResolve`, `decideResume`, `decideManualTrigger`, `decideCancel`), agents, timers,
 * and a planner and validator that answer with {@link modelPlan}. `live` is evolved event by event
 * as the events are appended; the invariants are checked on every append and after every step.
 */
export class LifecycleSystem {
  readonly events: StoredEvent[] = [];
  live: RunState = initialRunState();
  /** Agent calls in flight: the `node_start` delivery that made each. */
  invocations: StoredEvent[] = [];
  /** Deliveries held back by a delayed nak (retry backoff). */
  timers: Array<{ event: StoredEvent; dueAt: number }> = [];
  private readonly keys = new Set<string>();
  /** `hitl_resolved` events appended during the current pause: the executor may decide nothing on them. */
  private readonly decidedWhilePaused = new Set<string>();
  private readonly queue: StoredEvent[] = [];
  /**
   * The gate oracle: what each node event made fire, evaluated on the state right after it (the
   * policy semantics), by `<policyId>|<trigger key>`. Nothing may start or end the run while one of
   * these has no `policy_triggered`.
   */
  private readonly verdicts: Array<{ key: string; on: string }> = [];
  /**
   * The follow-up oracle: events on which HITL decisions that do something (a rejection, an
   * approval with an action, an operator's node output) took effect, and the executor has not yet
   * reacted to: nothing may start or end the run before that reaction.
   */
  private readonly owedFollowUps = new Set<string>();
  private reactingTo?: string;
  /** Which queued delivery the executor takes next (0: in order): its deliveries race. */
  private pick: (queued: number) => number = () => 0;
  private now = T0;
  private seq = 0;

  /**
   * `planAttempts` is the validator's attempt limit (`FLEX_MAX_PLAN_ATTEMPTS`, counted over the run,
   * as `replans` is). With the first plan accepted at once, a replan's attempt is always its replan
   * count plus one, so one setting reaches either a replan refused to the end (3, with two replans) or
   * a refused replan asked again past the replan bound (4): the spec picks one per sequence.
   */
  constructor(
    private readonly limits: RunLimits = { maxReplans: 2, maxHitlRequests: 4 },
    private readonly retry: RetryPolicy = { maxAttempts: 2, backoffMs: () => 500 },
    private readonly planAttempts = 3,
  ) {
    const envelope = envelopeWith(modelPolicies);
    const owner = { principal: 'tok_client', role: 'client' };
    this.append([
      { type: 'start', payload: { runId: 'r1', envelope, normalization: [], owner } },
      planRequest(1, 'initial'),
    ]);
    // The first plan is accepted: the interleavings worth exploring happen once a run has one.
    this.planStep('accept');
  }

  // ---- the store -------------------------------------------------------------------------------

  private append(decided: readonly Decided[], key?: string, expectedVersion?: number): Append {
    if (decided.length === 0) return { appended: [], duplicate: false, conflict: false };
    if (expectedVersion !== undefined && expectedVersion !== this.events.length)
      return { appended: [], duplicate: false, conflict: true };
    if (key !== undefined && this.keys.has(key)) return { appended: [], duplicate: true, conflict: false };
    if (key !== undefined) this.keys.add(key);
    // The reaction to such a decision may act on what node events made fire (dueFirings), as any
    // reaction does first, even while paused: a gate that fired is recorded, not the decision.
    const owedGate = this.live.status !== 'none' && !!this.live.dueFirings?.length;
    if (
      key !== undefined &&
      this.decidedWhilePaused.has(key.replace('executor:advance:', '')) &&
      !(owedGate && decided[0].type === 'policy_triggered')
    ) {
      throw new Error(
        `a decision made while paused took effect before the resume: ${decided.map((d) => d.type).join(', ')}`,
      );
    }
    const appended = decided.map((d) => this.store(d));
    // A follow-up appended with the decision that owes it is no window for anything else.
    for (const e of appended.slice(0, -1)) this.owedFollowUps.delete(e.id);
    return { appended, duplicate: false, conflict: false };
  }

  private store(d: Decided): StoredEvent {
    const version = this.events.length + 1;
    const event: StoredEvent = {
      position: version,
      id: `e${version}`,
      streamId: 'run-r1',
      version,
      type: d.type,
      payload: d.payload,
      metadata: { correlationId: 'corr-1' },
      timestamp: new Date(this.now).toISOString(),
    };
    checkAppend(this.live, event);
    this.checkGates(event);
    const before = this.live;
    this.live = evolveRun(this.live, event);
    this.recordVerdict(event);
    this.recordFollowUps(before, event);
    checkTransition(before, this.live, event, this.events[this.events.length - 1]?.type);
    if (event.type === 'hitl_resolved' && before.status === 'paused') this.decidedWhilePaused.add(event.id);
    // From the resume on, the executor may act on those events again (their follow-ups are the resume's).
    if (event.type === 'run_resumed') this.decidedWhilePaused.clear();
    this.events.push(event);
    if (EXECUTOR_EVENTS.has(event.type)) this.queue.push(event);
    return event;
  }

  /** A gateway command: decide on the state the store holds, append with its version; a refusal appends what it records. */
  private command(decide: (s: RunState) => ControlDecision): ControlDecision {
    const outcome = decide(this.live);
    this.append(outcome.events, undefined, this.events.length);
    return outcome;
  }

  // ---- the executor ----------------------------------------------------------------------------

  /**
   * Deliver everything queued to the executor until nothing is left, in the order {@link raceDeliveries}
   * chose: the executor handles a run's events concurrently, and each handler decides on the stream as
   * it is when it appends.
   */
  settle(): void {
    while (this.queue.length) {
      const [event] = this.queue.splice(this.pick(this.queue.length) % this.queue.length, 1);
      this.deliver(event);
    }
  }

  /** From now on the executor takes queued deliveries in an order drawn from `seed`. */
  raceDeliveries(seed: number): void {
    let x = seed >>> 0 || 1;
    this.pick = (queued) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % queued;
    };
  }

  private recordVerdict(event: StoredEvent): void {
    if (this.live.status === 'none' || this.live.status === 'planning' || isTerminal(this.live)) return;
    const p = event.payload as { nodeId?: string; scope?: string; errors?: unknown[] };
    let input: PolicyTriggerInput | undefined;
    if (event.type === 'node_complete' && p.nodeId)
      input = { kind: 'onNodeComplete', nodeId: p.nodeId, eventId: event.id };
    if (event.type === 'validation_error' && p.nodeId && p.scope !== 'envelope')
      input = { kind: 'onValidationFail', nodeId: p.nodeId, eventId: event.id, errors: p.errors ?? [] };
    if (!input) return;
    for (const f of evaluatePolicies(this.live, input, new Date(event.timestamp)))
      this.verdicts.push({ key: firingKey(f.policy.id, f.trigger), on: `${event.type} ${event.id}` });
  }

  /** No node starts and the run does not complete past a policy a node event made fire. */
  private checkGates(event: StoredEvent): void {
    if (event.type !== 'node_start' && event.type !== 'complete') return;
    if (this.live.status === 'none') return;
    const firings = this.live.policyFirings;
    const owed = this.verdicts.find((v) => !firings[v.key]);
    if (owed) throw new Error(`${event.type} appended while policy ${owed.key} (on ${owed.on}) is owed`);
    const followUp = [...this.owedFollowUps].find((id) => id !== this.reactingTo);
    if (followUp)
      throw new Error(
        `${event.type} appended before the follow-up of the decisions effective on ${followUp}`,
      );
  }

  /** Decisions that take effect on `event` and whose follow-up appends something are owed it. */
  private recordFollowUps(before: RunState, event: StoredEvent): void {
    if (event.type !== 'hitl_resolved' && event.type !== 'run_resumed') return;
    const { followUpsApplied: _applied, ...payload } = event.payload as Record<string, unknown>;
    const probe = evolveRun(before, { ...event, payload });
    if (decideHitlFollowUps(probe, event.id, this.limits, new Date(this.now)).length)
      this.owedFollowUps.add(event.id);
  }

  /** Several agent calls in flight answer before the executor handles any of their events. */
  agentsAnswerTogether(
    answers: ReadonlyArray<[number, AgentOutcome]>,
    meanwhile?: { index: number; decision: 'approve' | 'reject' },
  ): void {
    this.tick();
    for (const [index, outcome] of answers) {
      if (this.invocations.length === 0) break;
      const [start] = this.invocations.splice(index % this.invocations.length, 1);
      const p = start.payload as { nodeId: string; attempt: number };
      this.append(
        decideInvocation(this.live, p.nodeId, p.attempt, agentOutcome(p.nodeId, outcome), this.retry),
        `executor:invoke:${start.id}`,
      );
    }
    // An operator decides while the executor has not handled the answers yet.
    if (meanwhile) this.resolve(meanwhile.index, meanwhile.decision, false);
    this.settle();
  }

  private deliver(event: StoredEvent): void {
    if (event.type === 'node_start') return this.invoke(event);
    const now = new Date(this.now);
    const options = (fallbacks?: readonly CapabilityRegistration[]) => ({
      limits: this.limits,
      retry: this.retry,
      fallbacks,
    });
    this.reactingTo = event.id;
    let outcome = this.decide(`executor:advance:${event.id}`, (s, f) =>
      decideReaction(s, event, now, options(f)),
    );
    if (outcome.duplicate) outcome = this.decide(undefined, (s, f) => decideOnEvent(s, [], now, options(f)));
    this.reactingTo = undefined;
    this.owedFollowUps.delete(event.id);
    const wake = outcome.decision ? wakeOf(outcome.decision) : undefined;
    if (wake !== undefined) this.timers.push({ event, dueAt: this.now + Math.max(wake, 10) });
    if (event.type === 'plan_generated') this.append(decideTimers(this.live, now, this.limits).events);
  }

  /** As ExecutorHandler.run: decide; when the registry's view is needed, decide again with it. */
  private decide(
    key: string | undefined,
    decide: (s: RunState, f?: readonly CapabilityRegistration[]) => AdvanceDecision,
  ) {
    let decision = decide(this.live);
    let result = this.append(decision.events, key);
    if (result.appended.length === 0 && !result.duplicate && needsRegistry(decision)) {
      decision = decide(this.live, modelRegistry);
      result = this.append(decision.events, key);
    }
    return { decision, duplicate: result.duplicate };
  }

  /** `node_start`: the executor's own decision says whether the agent is called (its answer comes later). */
  private invoke(start: StoredEvent): void {
    const p = start.payload as EventPayload<'node_start'>;
    const decided = decideNodeStart(this.live, { start: p, agentType: 'ai' }, this.limits);
    if (effectsOf(decided, 'invoke').length) this.invocations.push(start);
  }

  // ---- the outside world -----------------------------------------------------------------------

  agentAnswers(index: number, outcome: AgentOutcome): void {
    if (this.invocations.length === 0) return;
    const [start] = this.invocations.splice(index % this.invocations.length, 1);
    const p = start.payload as { nodeId: string; attempt: number };
    this.tick();
    const answer = agentOutcome(p.nodeId, outcome);
    const unreachable = {
      elapsedMs: outcome === 'gone' ? UNREACHABLE_BUDGET_MS : 0,
      budgetMs: UNREACHABLE_BUDGET_MS,
      deliveriesLeft: 5,
      jitter: 0,
    };
    const decided = decideAttempt(this.live, p.nodeId, p.attempt, answer, { retry: this.retry, unreachable });
    this.append(decided.events, `executor:invoke:${start.id}`);
    // Within the budget the node_start delivery is held, and asks the agent again when it comes back.
    const wake = wakeOf(decided);
    if (wake !== undefined) this.timers.push({ event: start, dueAt: this.now + wake });
    this.settle();
  }

  /**
   * The agents that were unreachable are back: the executor's look at each pending request that
   * stands in for one (as its held `hitl_request` delivery would) may withdraw it.
   */
  agentsBack(): void {
    this.tick();
    const seen = {
      registration: {} as CapabilityRegistration,
      status: 'active' as const,
      activeInstances: 1,
      registeredAt: new Date(T0).toISOString(),
      lastSeenAt: new Date(this.now).toISOString(),
    };
    const clock = { elapsedMs: 0, budgetMs: UNREACHABLE_BUDGET_MS, deliveriesLeft: 5, jitter: 0 };
    for (const request of this.events.filter((e) => e.type === 'hitl_request')) {
      const { requestId } = payloadOf(request, 'hitl_request');
      const raised = { requestId, raisedAt: request.timestamp };
      this.append(decideWithdrawal(this.live, raised, seen, clock).events, `executor:withdraw:${request.id}`);
    }
    this.settle();
  }

  /** The agent call in flight for `nodeId`, if any, answers (the model's way to reach a node's repair chain). */
  nodeAnswers(nodeId: string, outcome: AgentOutcome): void {
    const index = this.invocations.findIndex(
      (start) => (start.payload as { nodeId: string }).nodeId === nodeId,
    );
    if (index >= 0) this.agentAnswers(index, outcome);
  }

  timerFires(): void {
    const next = [...this.timers].sort((a, b) => a.dueAt - b.dueAt)[0];
    if (!next) return;
    this.timers.splice(this.timers.indexOf(next), 1);
    this.now = Math.max(this.now, next.dueAt);
    this.deliver(next.event);
    this.settle();
  }

  resolve(index: number, decision: 'approve' | 'reject' | 'bad', settle = true): ControlDecision | undefined {
    const pending = pendingHitlRequests(this.live);
    if (pending.length === 0 || this.live.status === 'none') return undefined;
    const requestId = pending[index % pending.length];
    const nodeOutput = this.live.hitl[requestId].mode === 'node_output';
    const payload = nodeOutput
      ? decision === 'bad'
        ? { copyVariants: 'nope' }
        : { copyVariants: variants }
      : undefined;
    const errors =
      decision === 'bad' && nodeOutput ? [{ path: '/copyVariants', message: 'must be array' }] : [];
    const request = {
      runId: 'r1',
      requestId,
      decision: decision === 'reject' ? ('reject' as const) : ('approve' as const),
      ...(payload ? { payload } : {}),
    };
    this.tick();
    const at = new Date(this.now);
    const outcome = this.command((s) =>
      withFollowUps(s, decideHitlResolve(s, request, 'op', errors), this.limits, at),
    );
    if (settle) this.settle();
    return outcome;
  }

  trigger(policyId: string): ControlDecision {
    this.tick();
    const outcome = this.command((s) =>
      decideManualTrigger(s, 'r1', policyId, new Date(this.now), this.limits),
    );
    this.settle();
    return outcome;
  }

  resume(): ControlDecision {
    this.tick();
    const planVersion = this.live.status === 'none' ? 0 : this.live.planVersion;
    const outcome = this.command(
      resumeDecider('r1', planVersion, 'op', this.limits, () => new Date(this.now)),
    );
    this.settle();
    return outcome;
  }

  /**
   * Two resumes decided on the same state: the first appends; the executor reacts (the run may
   * pause again at once); the second conflicts, decides again and is refused, even if the run is
   * paused again: it resumes only the pause it saw.
   */
  concurrentResumes(): ControlDecision[] {
    this.tick();
    const seen = this.live;
    const version = this.events.length;
    const planVersion = seen.status === 'none' ? 0 : seen.planVersion;
    const outcomes: ControlDecision[] = [];
    for (let i = 0; i < 2; i++) {
      const decide = resumeDecider('r1', planVersion, `op${i}`, this.limits, () => new Date(this.now));
      let outcome = decide(seen);
      if (!refusalOf(outcome) && this.append(outcome.events, undefined, version).conflict)
        outcome = this.command(decide);
      outcomes.push(outcome);
      this.settle();
    }
    return outcomes;
  }

  cancel(): void {
    this.tick();
    this.append(decideCancel(this.live, { runId: 'r1', by: 'op' }).events, undefined, this.events.length);
    this.settle();
  }

  /**
   * The planner answers the request asked (a draft, or with `error` no plan at all), then the
   * validator accepts the draft or, for any other outcome, rejects it.
   */
  planStep(outcome: PlanOutcome): void {
    const s = this.live;
    if (s.status === 'none' || isTerminal(s)) return;
    this.tick();
    const request = s.planRequest;
    if (request?.stage === 'asked')
      this.append(this.plannerAnswer(s, request, outcome === 'error'), `planner:${request.requestEventId}`);
    const after = this.live;
    const draft = after.status === 'none' || isTerminal(after) ? undefined : after.planRequest;
    if (draft?.stage === 'drafted')
      this.append(
        this.validate(after, draft.attempt, outcome === 'accept'),
        `validator:${draft.draftEventId}`,
      );
    this.settle();
  }

  /**
   * As the planner: past the replan bound the run fails; a planner error on a replan a node's failure
   * asked for is only `plan_rejected` (the run keeps its plan), on anything else it fails the run.
   */
  private plannerAnswer(run: RunState, request: PlanRequestAsked, error: boolean): Decided[] {
    const replans = this.events.filter(
      (e) => e.type === 'plan_requested' && (e.payload as { reason: string }).reason === 'replan',
    ).length;
    if (request.reason === 'replan' && replans > this.limits.maxReplans)
      return [
        {
          type: 'run_failed',
          payload: { code: 'replan_limit', reason: `replan ${replans} is past the limit` },
        },
      ];
    const { attempt } = request;
    if (!error)
      return [{ type: 'plan_drafted', payload: { attempt, plan: modelPlan, planHash: 'h'.repeat(64) } }];
    if (replanForNodeFailure(run))
      return [
        {
          type: 'plan_rejected',
          payload: { source: 'planner', attempt, plannerError, diagnostics: rejected },
        },
      ];
    return [
      {
        type: 'run_failed',
        payload: { code: plannerError.code, reason: `planner: ${plannerError.message}` },
      },
    ];
  }

  private validate(run: RunState, attempt: number, accept: boolean): Decided[] {
    if (run.status === 'none') return [];
    const version = run.planVersion + 1;
    const plan = { ...modelPlan, planVersion: version };
    const common = { plan, nodes: [], planHash: 'h'.repeat(64), diagnostics: accepted };
    if (accept && run.planVersion > 0)
      return [
        {
          type: 'plan_updated',
          payload: { previousVersion: run.planVersion, version, trigger: {}, ...common },
        },
      ];
    if (accept)
      return [
        { type: 'plan_generated', payload: { planVersion: version, metadata: plan.metadata, ...common } },
      ];
    const refused = {
      type: 'plan_rejected',
      payload: { attempt, planHash: 'h'.repeat(64), diagnostics: rejected },
    };
    // As the validator: a replan keeps answering its trigger; one a failure asked for, refused to
    // the end or past the replan bound, leaves the run on its plan; anything else refused to the end
    // fails the run.
    const replan = isPlanned(run) ? run.replan : undefined;
    const spent = attempt >= this.planAttempts || run.replans + 1 > this.limits.maxReplans;
    if (spent && replanForNodeFailure(run)) return [refused];
    if (attempt >= this.planAttempts)
      return [refused, { type: 'run_failed', payload: { code: 'plan_rejected', reason: 'no valid plan' } }];
    const again = planRequest(attempt + 1, run.planVersion > 0 ? 'replan' : 'rejected');
    const trigger = replan
      ? { replan: { trigger: replan.trigger, previousVersion: run.planVersion, completedNodeIds: [] } }
      : {};
    return [refused, { ...again, payload: { ...(again.payload as object), ...trigger } }];
  }

  /** Redeliver any stored event the executor handles, as a bus may. */
  duplicate(index: number): void {
    const handled = this.events.filter((e) => EXECUTOR_EVENTS.has(e.type));
    if (handled.length === 0) return;
    this.deliver(handled[index % handled.length]);
    this.settle();
  }

  /**
   * The process dies and comes back: the state is folded from the stored events (it must equal the
   * live one), agent calls in flight are lost and their `node_start` deliveries come again; held
   * deliveries (timers) and undelivered events are the bus's, and survive.
   */
  restart(): void {
    const rebuilt = this.events.reduce(evolveRun, initialRunState());
    expect(rebuilt).toEqual(this.live);
    this.live = rebuilt;
    const lost = this.invocations.splice(0);
    for (const start of lost) this.deliver(start);
    this.settle();
  }

  private tick(): void {
    this.now += 1_000 + (this.seq++ % 7) * 100;
  }

  // ---- what must hold --------------------------------------------------------------------------

  /** After every step: something will move a run that has not ended; the fold of the store is the live state. */
  checkMoving(): void {
    const s = this.live;
    if (s.status === 'none') throw new Error('the run vanished');
    if (isTerminal(s)) return;
    const reasons = whatMoves(s, this.invocations, this.timers.length);
    if (reasons.length === 0)
      throw new Error(`run ${s.status} with nothing to move it: ${JSON.stringify(s.nodes)}`);
    for (const [id, node] of Object.entries(s.nodes)) {
      const plannedNode = s.plan?.nodes.find((n) => n.id === id);
      // An agent call in flight, or an unreachable agent waited for (its node_start delivery held).
      if (
        node.status === 'running' &&
        plannedNode?.capabilityId &&
        !this.invocations.some((i) => sameAttempt(i, id, node.attempt)) &&
        !this.timers.some((t) => t.event.type === 'node_start' && sameAttempt(t.event, id, node.attempt))
      ) {
        throw new Error(
          `${id} attempt ${node.attempt} is running with no agent call in flight or waited for`,
        );
      }
      if (
        node.status === 'awaiting_hitl' &&
        !(node.hitlRequestId && s.hitl[node.hitlRequestId]?.status !== 'resolved')
      ) {
        throw new Error(`${id} waits for an operator no request asks`);
      }
    }
    if (s.status === 'running' && s.deferredReplan) throw new Error('a running run holds a deferred replan');
    const pending = pendingHitlRequests(s);
    if (s.status === 'running' && pending.length)
      throw new Error(`running with HITL request(s) ${pending.join(', ')} pending`);
    if (s.status === 'awaiting_hitl' && pending.length === 0)
      throw new Error('awaiting_hitl with no request pending');
  }

  /** Play a helpful world until the run ends: agents answer, operators approve and resume, the planner plans. */
  drive(maxSteps = 400): void {
    for (let step = 0; step < maxSteps; step++) {
      const s = this.live;
      if (s.status === 'none' || isTerminal(s)) return;
      if (s.status === 'paused') this.resume();
      else if (pendingHitlRequests(s).length) this.resolve(0, 'approve');
      else if (s.planRequest) this.planStep('accept');
      else if (this.invocations.length) this.agentAnswers(0, 'ok');
      else if (this.timers.length) this.timerFires();
      else throw new Error(`stuck: ${s.status} ${JSON.stringify(s.nodes)}`);
      this.checkMoving();
    }
    throw new Error(`the run did not end in ${maxSteps} steps`);
  }

  /** What must hold of the whole stream once a sequence is over. */
  checkStream(): void {
    const terminal = this.events.filter(
      (e) => e.type === 'complete' || e.type === 'run_failed' || e.type === 'run_cancelled',
    );
    expect(terminal.length).toBeLessThanOrEqual(1);
    if (terminal.length) expect(this.events[this.events.length - 1]).toBe(terminal[0]);
    expect(this.events.reduce(evolveRun, initialRunState())).toEqual(this.live);
  }
}

function planRequest(attempt: number, reason: string): Decided {
  return { type: 'plan_requested', payload: { attempt, reason, policyKeys: [] } };
}

const sameAttempt = (start: StoredEvent, nodeId: string, attempt: number) => {
  const p = start.payload as { nodeId: string; attempt: number };
  return p.nodeId === nodeId && p.attempt === attempt;
};

/** The codes of a run failed because planning found no plan (the planner, the validator, the replan bound). */
const PLANNING_FAILURE = /^(PLANNER_|plan_rejected$|replan_limit$)/;

/**
 * Every append: nothing after the end, no completed node started again, never `complete` with a
 * request pending, no replan a node's failure asked for ending the run.
 */
function checkAppend(state: RunState, event: StoredEvent): void {
  if (state.status === 'none') return;
  if (isTerminal(state)) throw new Error(`${event.type} appended after the run ended (${state.status})`);
  // Rule 6: a replan a node's failure asked for that finds no plan leaves the run its plan.
  if (event.type === 'run_failed' && replanForNodeFailure(state)) {
    const { code } = payloadOf(event, 'run_failed');
    if (PLANNING_FAILURE.test(code))
      throw new Error(`a replan a node's failure asked for failed the run (${code})`);
  }
  if (event.type === 'complete' && pendingHitlRequests(state).length)
    throw new Error(`complete with HITL request(s) pending: ${pendingHitlRequests(state).join(', ')}`);
  if (event.type === 'node_start') {
    const { nodeId } = event.payload as { nodeId: string };
    if (state.nodes[nodeId]?.status === 'completed')
      throw new Error(`completed node ${nodeId} started again`);
    if (state.status !== 'running') throw new Error(`${nodeId} started while the run is ${state.status}`);
    const waiting = pendingHitlRequests(state);
    if (waiting.length)
      throw new Error(`${nodeId} started while HITL request(s) ${waiting.join(', ')} are pending`);
  }
}

/** Only a resume ends a pause (or the end of the run); a replan waits for pending HITL decisions. */
function checkTransition(before: RunState, after: RunState, event: StoredEvent, previous?: string): void {
  const ended = isTerminal(after);
  if (before.status === 'paused' && after.status !== 'paused' && !ended && event.type !== 'run_resumed') {
    throw new Error(`${event.type} took the run out of its pause (now ${after.status})`);
  }
  const replan = event.type === 'plan_requested' && (event.payload as { reason: string }).reason === 'replan';
  // A draft refused and asked again (after `plan_rejected`) is the replan already in flight.
  if (replan && previous !== 'plan_rejected' && pendingHitlRequests(before).length) {
    throw new Error(
      `a replan was asked while HITL request(s) ${pendingHitlRequests(before).join(', ')} are pending`,
    );
  }
}

function whatMoves(
  s: Exclude<RunState, { status: 'none' }>,
  invocations: readonly StoredEvent[],
  timers: number,
): string[] {
  const reasons: string[] = [];
  if (s.status === 'paused') reasons.push('a resume');
  if (pendingHitlRequests(s).length) reasons.push('an operator');
  if (s.planRequest) reasons.push('the planner');
  if (invocations.length) reasons.push('an agent');
  if (timers) reasons.push('a timer');
  if (isPlanned(s) && replanInFlight(s)) reasons.push('a replan');
  return reasons;
}

function agentOutcome(nodeId: string, outcome: AgentOutcome): InvokeOutcome {
  const failure = (code: string, retryable: boolean): InvokeOutcome => ({
    ok: false,
    durationMs: 5,
    error: { code, message: `${nodeId}: ${code}`, retryable },
  });
  switch (outcome) {
    case 'unreachable':
    case 'gone':
      return { ...failure('NO_RESPONDERS', true), unreachable: true } as InvokeOutcome;
    case 'fail':
      return failure('agent_error', true);
    case 'fatal':
      return failure('agent_refused', false);
    case 'timeout':
      return failure('timeout', true);
    case 'invalid':
      return {
        ...failure('invalid_output', true),
        outputErrors: [{ path: '/', message: 'output must be an object' }],
      } as InvokeOutcome;
    case 'ok':
    case 'low':
      return { ok: true, durationMs: 5, output: outputOf(nodeId, outcome === 'low' ? 0.3 : 0.9) };
  }
}

function outputOf(nodeId: string, score: number): Record<string, unknown> {
  switch (nodeId) {
    case 's':
      return brief;
    case 'w':
      return { copyVariants: variants };
    case 'r':
      return { strategicRationale: 'Two angles, one message.' };
    default:
      return qaFindings(score);
  }
}
