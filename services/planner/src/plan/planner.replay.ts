import type { EventPayload, PlannerError, PlannerOutput } from '@flex/contracts';
import { takenFromRecord, type Redecision, type ReplayAdapter, type ReplayStep } from '@flex/replay';
import { evolveRun, initialRunState, payloadOf, replanLimitFailure, type StartedRun } from '@flex/run-model';
import { ruleBasedFallback } from '../llm/rule-based-fallback';
import { plannerOutput } from './planner';
import { decidePlan, draftedOver, type PlanOutcome } from './planner.decide';
import { plannerRequest } from './planner-request';
import { planRuleBased, RULE_BASED_PLANNER } from './rule-based.planner';

/** What the planner decides with that is configuration, not record. */
export interface PlannerReplaySettings {
  /** `FLEX_MAX_REPLANS`. */
  maxReplans: number;
}

type Draft = EventPayload<'plan_drafted'>;

/**
 * The planner's decisions, taken again (docs/AUDIT.md, "Verified replay"): `decidePlan` on the run
 * before the request. A rule-based draft (or a fallback draft) is planned again over the
 * registrations the draft recorded (full determinism, spec 004); another planner's draft (an LLM's)
 * is taken from the record and only what the planner makes of it is re-decided (structural). A
 * planner that found no plan is taken from the record: its view of the whole registry is not kept.
 */
export function plannerReplayAdapter(settings: PlannerReplaySettings): ReplayAdapter {
  return { producer: 'planner', redecide: (step) => redecide(step, settings) };
}

function redecide(step: ReplayStep, settings: PlannerReplaySettings): Redecision[] {
  const { trigger, recorded, history } = step;
  if (trigger?.type !== 'plan_requested') throw new Error('a planner decision answers a plan_requested');
  const state = history.reduce(evolveRun, initialRunState());
  if (state.status === 'none') return [];
  const request = payloadOf(trigger, 'plan_requested');
  const refused =
    request.reason === 'replan'
      ? replanLimitFailure(state.replans, settings.maxReplans, 'the run')
      : undefined;
  const drafted = recorded.find((e) => e.type === 'plan_drafted');
  let outcome: PlanOutcome;
  if (refused) outcome = { kind: 'replan_limit', ...refused };
  else if (drafted)
    outcome = { kind: 'planned', ...planAgain(state, request, payloadOf(drafted, 'plan_drafted')) };
  else return [takenFromRecord(recorded)];
  return [{ via: 'decidePlan', events: decidePlan(state, trigger.id, outcome) }];
}

/** The planner's answer and what it drafted over: planned again when it can be, else as recorded. */
function planAgain(state: StartedRun, request: EventPayload<'plan_requested'>, draft: Draft) {
  const { registrations } = draft;
  const replannable = request.fallback || draft.plan.metadata.plannerId === RULE_BASED_PLANNER.id;
  if (!registrations || !replannable)
    return { result: recordedOutput(draft), registry: draft.registry, registrations };
  const input = plannerRequest(state, request, registrations);
  const result: PlannerOutput | PlannerError = request.fallback
    ? ruleBasedFallback(input, `${request.fallback.reason}: ${request.fallback.message}`)
    : planRuleBased(input);
  return { result, ...draftedOver(registrations) };
}

function recordedOutput(draft: Draft): PlannerOutput {
  return plannerOutput(draft.plan, draft.plannerError ? { plannerError: draft.plannerError } : {});
}
