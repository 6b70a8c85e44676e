import type { EventPayload } from '@flex/contracts';
import { typedEvent, type StoredEvent } from '@flex/event-store';
import type { DecidedFlexEvent } from '@flex/contracts';
import {
  decideDeferredReplan,
  decideFirings,
  decideHitlFollowUps,
  evaluatePolicies,
  foldDecided,
  isPlanned,
  isTerminal,
  runtimePolicies,
  type PolicyFiring,
  type PolicyTriggerInput,
  type RunLimits,
  type RunState,
  type StartedRun,
} from '@flex/run-model';
import { andThen, decision, NO_DECISION } from '@flex/decider';
import { decideAdvance, type AdvanceDecision, type AdvanceOptions } from './advance.decide';
import { eventsAndWake } from './executor.decision';

/** How the policies watching a trigger are evaluated (the policy engine's `evaluatePolicies`). */
export type PolicyEvaluator = (state: StartedRun, trigger: PolicyTriggerInput, now: Date) => PolicyFiring[];

export interface ExecutorDecideOptions extends AdvanceOptions {
  limits: RunLimits;
  /** The policy engine's evaluation (default `evaluatePolicies`); a replay can put another in its place. */
  evaluate?: PolicyEvaluator;
}

/**
 * The executor's reaction to one run event (pure): the decisions that take effect on it, the
 * policies it triggers, a replan that was waiting for them, then moving the run forward. The same
 * event handled twice decides the same events (the adapter appends them once).
 */
export function decideReaction(
  state: RunState,
  event: StoredEvent,
  now: Date,
  options: ExecutorDecideOptions,
): AdvanceDecision {
  const typed = typedEvent(event);
  switch (typed?.type) {
    case 'plan_generated':
      return decideOnEvent(state, [{ kind: 'onStart' }], now, options);
    case 'node_complete':
      // The fold reached its verdict on the node event (RunCore.dueFirings): acted on below.
      return decideOnEvent(state, [], now, options);
    case 'validation_error': {
      const p = typed.payload;
      // An envelope's own errors are no node's: nothing to react to (a node's: as node_complete).
      if (!p.nodeId || p.scope === 'envelope') return NO_DECISION;
      return decideOnEvent(state, [], now, options);
    }
    case 'hitl_resolved':
    case 'run_resumed':
      return decideAfterDecision(state, event.id, now, options);
    case 'plan_rejected':
      // A refused replan: the run goes on with its plan (a first plan refused is the validator's to follow up).
      return isPlanned(state) ? decideOnEvent(state, [], now, options) : NO_DECISION;
    default:
      return decideOnEvent(state, [], now, options);
  }
}

/**
 * React to one run event (pure): evaluate the policies watching `trigger` (plus `onMetricBelow` and
 * a due `onTimeout`, which are checked on every event), run their actions, ask for a replan that
 * waited for HITL decisions once none is pending, then move the run forward on the state those
 * events leave behind.
 */
export function decideOnEvent(
  state: RunState,
  triggers: readonly PolicyTriggerInput[],
  now: Date,
  options: ExecutorDecideOptions,
): AdvanceDecision {
  if (state.status === 'none' || isTerminal(state)) return NO_DECISION;
  const policyEvents = decidePolicies(
    state,
    [...triggers, { kind: 'onMetricBelow' }, { kind: 'onTimeout' }],
    now,
    options,
  );
  return withAdvance(state, policyEvents, now, options);
}

/**
 * On the event that puts HITL decisions into effect (`hitl_resolved`, or the `run_resumed` after
 * decisions made during a pause): their follow-ups, then as {@link decideOnEvent}.
 */
export function decideAfterDecision(
  state: RunState,
  eventId: string,
  now: Date,
  options: ExecutorDecideOptions,
): AdvanceDecision {
  if (state.status === 'none' || isTerminal(state)) return NO_DECISION;
  const followUps = decideHitlFollowUps(state, eventId, options.limits, now) as DecidedFlexEvent[];
  const next = foldDecided(state, followUps, now);
  if (next.status === 'none' || isTerminal(next)) return decision(followUps);
  const policyEvents = decidePolicies(next, [{ kind: 'onMetricBelow' }, { kind: 'onTimeout' }], now, options);
  return withAdvance(state, [...followUps, ...policyEvents], now, options);
}

/** After `hitl_resolved` (its payload): the follow-up of that decision, then advance. */
export function decideAfterHitl(
  state: RunState,
  resolved: EventPayload<'hitl_resolved'>,
  now: Date,
  options: ExecutorDecideOptions,
): AdvanceDecision {
  const request = state.status === 'none' ? undefined : state.hitl[resolved.requestId];
  if (!request || request.status !== 'resolved') return decideOnEvent(state, [], now, options);
  return decideAfterDecision(state, request.effectiveAt, now, options);
}

/**
 * The run's deadline timer: fire a due `onTimeout` policy, else say when the next one is due
 * (the adapter holds a delivery with a delayed nak until then). Paused and waiting runs keep
 * their deadline.
 */
export function decideTimers(
  state: RunState,
  now: Date,
  limits: RunLimits,
  evaluate?: PolicyEvaluator,
): AdvanceDecision {
  if (state.status === 'none' || isTerminal(state)) return NO_DECISION;
  const events = decidePolicies(state, [{ kind: 'onTimeout' }], now, { limits, evaluate });
  if (events.length) return decision(events);
  let wakeInMs: number | undefined;
  for (const policy of runtimePolicies(state)) {
    if (policy.trigger.kind !== 'onTimeout' || state.policyFirings[`${policy.id}|onTimeout`]) continue;
    const wait = Date.parse(state.startedAt) + policy.trigger.ms - now.getTime();
    wakeInMs = Math.max(1, Math.min(wakeInMs ?? wait, wait));
  }
  return eventsAndWake([], wakeInMs);
}

function decidePolicies(
  state: StartedRun,
  triggers: readonly PolicyTriggerInput[],
  now: Date,
  { limits, evaluate = evaluatePolicies }: Pick<ExecutorDecideOptions, 'limits' | 'evaluate'>,
): DecidedFlexEvent[] {
  const out: DecidedFlexEvent[] = [];
  let current = state;
  const blocked = () =>
    isTerminal(current) ||
    current.status !== 'running' ||
    current.planRequest !== undefined ||
    current.deferredReplan !== undefined;
  // First what node events made fire and nothing has acted on yet, in stream order, one trigger at
  // a time: each is recorded (policy_triggered) and acted on, until one holds the run.
  for (let due = current.dueFirings; due?.length; due = current.dueFirings) {
    if (isTerminal(current)) return out;
    const key = due[0].trigger.key;
    const events = decideFirings(
      current,
      due.filter((f) => f.trigger.key === key),
      limits,
      now,
    );
    if (events.length === 0) return out;
    out.push(...events);
    current = foldDecided(current, events, now) as StartedRun;
    if (blocked()) return out;
  }
  for (const trigger of triggers) {
    if (isTerminal(current)) break;
    const firings = evaluate(current, trigger, now);
    if (!firings.length) continue;
    const events = decideFirings(current, firings, limits, now);
    out.push(...events);
    current = foldDecided(current, events, now) as StartedRun;
    if (blocked()) break;
  }
  return out;
}

function withAdvance(
  state: StartedRun,
  before: DecidedFlexEvent[],
  now: Date,
  options: ExecutorDecideOptions,
): AdvanceDecision {
  const next = foldDecided(state, before, now);
  const replan = decideDeferredReplan(next, options.limits) as DecidedFlexEvent[];
  if (replan.length) return decision([...before, ...replan]);
  return andThen(decision(before), decideAdvance(next, now, options));
}
