import type { EventPayload } from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import {
  decideFirings, decideHitlFollowUp, evaluatePolicies, foldDecided, isTerminal, runtimePolicies,
  type PolicyTriggerInput, type RunLimits, type RunState, type StartedRun,
} from '@flex/run-model';
import { decideAdvance, type AdvanceDecision, type AdvanceOptions } from './advance.decide';

export interface ExecutorDecideOptions extends AdvanceOptions {
  limits: RunLimits;
}

/**
 * React to one run event (pure): evaluate the policies watching `trigger` (plus `onMetricBelow` and
 * a due `onTimeout`, which are checked on every event), run their actions, then move the run
 * forward on the state those events leave behind.
 */
export function decideOnEvent(state: RunState, triggers: readonly PolicyTriggerInput[], now: Date, options: ExecutorDecideOptions): AdvanceDecision {
  if (state.status === 'none' || isTerminal(state)) return { events: [] };
  const policyEvents = decidePolicies(state, [...triggers, { kind: 'onMetricBelow' }, { kind: 'onTimeout' }], now, options.limits);
  return withAdvance(state, policyEvents, now, options);
}

/** After `hitl_resolved`: the follow-up action, then advance. */
export function decideAfterHitl(state: RunState, resolved: EventPayload<'hitl_resolved'>, now: Date, options: ExecutorDecideOptions): AdvanceDecision {
  if (state.status === 'none' || isTerminal(state)) return { events: [] };
  const followUp = decideHitlFollowUp(state, resolved, options.limits) as DecidedEvent[];
  const next = foldDecided(state, followUp, now);
  if (next.status === 'none' || isTerminal(next)) return { events: followUp };
  const policyEvents = decidePolicies(next, [{ kind: 'onMetricBelow' }, { kind: 'onTimeout' }], now, options.limits);
  return withAdvance(state, [...followUp, ...policyEvents], now, options);
}

/**
 * The run's deadline timer: fire a due `onTimeout` policy, else say when the next one is due
 * (the adapter holds a delivery with a delayed nak until then). Paused and waiting runs keep
 * their deadline.
 */
export function decideTimers(state: RunState, now: Date, limits: RunLimits): AdvanceDecision {
  if (state.status === 'none' || isTerminal(state)) return { events: [] };
  const events = decidePolicies(state, [{ kind: 'onTimeout' }], now, limits);
  if (events.length) return { events };
  let wakeInMs: number | undefined;
  for (const policy of runtimePolicies(state)) {
    if (policy.trigger.kind !== 'onTimeout' || state.policyFirings[`${policy.id}|onTimeout`]) continue;
    const wait = Date.parse(state.startedAt) + policy.trigger.ms - now.getTime();
    wakeInMs = Math.max(1, Math.min(wakeInMs ?? wait, wait));
  }
  return { events: [], wakeInMs };
}

function decidePolicies(state: StartedRun, triggers: readonly PolicyTriggerInput[], now: Date, limits: RunLimits): DecidedEvent[] {
  const out: DecidedEvent[] = [];
  let current = state;
  for (const trigger of triggers) {
    if (isTerminal(current)) break;
    const firings = evaluatePolicies(current, trigger, now);
    if (!firings.length) continue;
    const events = decideFirings(current, firings, limits, now);
    out.push(...events);
    current = foldDecided(current, events, now) as StartedRun;
    if (current.status !== 'running' || current.pendingPlanRequest) break;
  }
  return out;
}

function withAdvance(state: StartedRun, before: DecidedEvent[], now: Date, options: ExecutorDecideOptions): AdvanceDecision {
  const next = foldDecided(state, before, now);
  const advanced = decideAdvance(next, now, options);
  return { ...advanced, events: [...before, ...advanced.events] };
}
