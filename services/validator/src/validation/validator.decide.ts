import {
  PlannerFallbackSchema,
  runEvent,
  summarizePlan,
  type CapabilityRegistration,
  type DiagnosticsBundle,
  type EventPayload,
  type PlanGraph,
} from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import type { DecidedFlexEvent } from '@flex/contracts';
import {
  draftedPlanRequest,
  evolveRun,
  initialRunState,
  payloadOf,
  policyKeys,
  replanForNodeFailure,
  replanLimitFailure,
  type ActiveRun,
  type RunState,
} from '@flex/run-model';
import { provePlan } from './prove-plan';

type PlanRequest = EventPayload<'plan_requested'>;

/** The run as the validator folds it: the run state plus the replan a pending draft answers. */
export interface ValidatorState {
  run: RunState;
  /** The latest replan request (its trigger and previous version) since the last accepted plan. */
  replan?: NonNullable<PlanRequest['replan']>;
}

export const initialValidatorState = (): ValidatorState => ({ run: initialRunState() });

export function evolveValidator(state: ValidatorState, event: StoredEvent): ValidatorState {
  const run = evolveRun(state.run, event);
  if (event.type === 'plan_requested') {
    const request = payloadOf(event, 'plan_requested');
    // A re-request after a rejected replan draft still answers that replan.
    const replan = request.replan ?? (request.reason === 'rejected' ? state.replan : undefined);
    return replan ? { run, replan } : { run };
  }
  if (event.type === 'plan_generated' || event.type === 'plan_updated') return { run };
  return { ...state, run };
}

export interface ValidationInput {
  draftEventId: string;
  draft: EventPayload<'plan_drafted'>;
  active: readonly CapabilityRegistration[];
  /** `FLEX_MAX_PLAN_ATTEMPTS`: the attempt (counted over the run) after which only the rule-based fallback is asked. */
  maxAttempts: number;
  /** `FLEX_MAX_REPLANS`: a refused replan draft asked again counts as a replan, within this bound. */
  maxReplans: number;
}

/**
 * Prove a draft (DESIGN §5.3): accepted → `plan_generated` (first plan) or `plan_updated` (the run
 * already has a plan: a replan); rejected → `plan_rejected` and then {@link afterRejection}. Every
 * outcome carries the one diagnostics bundle under `diagnostics` and the registry the planner saw.
 */
export function decideValidation(
  state: ValidatorState | RunState,
  input: ValidationInput,
): DecidedFlexEvent[] {
  const { run, replan } = 'run' in state ? state : { run: state, replan: undefined };
  // Any live run: a replan requested during a HITL wait or a pause must not leave its draft unproven.
  const ended = run.status === 'completed' || run.status === 'failed' || run.status === 'cancelled';
  if (run.status === 'none' || ended) return [];
  if (!draftedPlanRequest(run, input.draftEventId)) return [];
  const { draft } = input;
  const bundle = provePlan(draft.plan, run.envelope, input.active);
  if (bundle.status !== 'rejected') return [accepted(run, draft, bundle, replan)];
  const rejected = runEvent('plan_rejected', {
    attempt: draft.attempt,
    planHash: draft.planHash,
    metadata: provenance(draft.plan),
    registry: draft.registry,
    diagnostics: bundle,
  });
  const { maxAttempts, maxReplans } = input;
  return [rejected, ...afterRejection(run, draft, bundle, { maxAttempts, maxReplans, replan })];
}

const RULE_BASED = PlannerFallbackSchema.shape.planner.value;

/**
 * What follows a rejection: another attempt with the diagnostics while attempts remain; once they
 * are used up by another planner's drafts, one attempt by the rule-based planner (`fallback` says
 * so and why); once the rule-based planner's draft is refused too, `run_failed` with the diagnostics.
 * Except for a replan a node's failure asked for, which ends refused rather than failing the run: the
 * run keeps its plan and the executor takes the node on down its repair chain (docs/lifecycle.md), so
 * nothing follows the rejection once that replan's drafts are used up, or once asking again would pass
 * the replan bound (the planner would then fail the run with `replan_limit`).
 */
function afterRejection(
  run: ActiveRun,
  draft: Draft,
  bundle: DiagnosticsBundle,
  limits: Limits,
): DecidedFlexEvent[] {
  const { attempt } = draft;
  const { plannerId } = draft.plan.metadata;
  const { maxAttempts, maxReplans, replan } = limits;
  const failureReplan = replanForNodeFailure(run);
  if (failureReplan && replanLimitFailure(run.replans + 1, maxReplans, 'the validator')) return [];
  const request = {
    attempt: attempt + 1,
    reason: run.planVersion > 0 ? ('replan' as const) : ('rejected' as const),
    policyKeys: policyKeys(run.envelope),
    diagnostics: bundle,
    ...(replan ? { replan } : {}),
  };
  if (attempt < maxAttempts) return [runEvent('plan_requested', request)];
  if (plannerId !== RULE_BASED) {
    const message =
      `the ${plannerId} planner's drafts were rejected ${attempt} time(s) ` +
      `(FLEX_MAX_PLAN_ATTEMPTS = ${maxAttempts}); the rule-based planner drafts once more`;
    const fallback = { planner: RULE_BASED, from: plannerId, reason: 'drafts_rejected' as const, message };
    return [runEvent('plan_requested', { ...request, fallback })];
  }
  if (failureReplan) return [];
  const reason = failureReason(attempt, bundle);
  return [
    runEvent('run_failed', { code: 'plan_rejected', reason, diagnostics: bundle, registry: draft.registry }),
  ];
}

interface Limits {
  maxAttempts: number;
  maxReplans: number;
  /** The replan the rejected draft answered, which the next request keeps answering. */
  replan: Replan;
}

type Draft = EventPayload<'plan_drafted'>;

type Replan = ValidatorState['replan'];

function accepted(
  run: ActiveRun,
  draft: Draft,
  diagnostics: DiagnosticsBundle,
  replan: Replan,
): DecidedFlexEvent {
  const version = run.planVersion + 1;
  const plan: PlanGraph = { ...draft.plan, planVersion: version };
  const { planHash, registry } = draft;
  const common = { plan, nodes: summarizePlan(plan), planHash, registry, diagnostics };
  if (run.planVersion > 0) {
    const trigger = replan?.trigger ?? {};
    return runEvent('plan_updated', { previousVersion: run.planVersion, version, trigger, ...common });
  }
  return runEvent('plan_generated', { planVersion: version, metadata: provenance(plan), ...common });
}

/** Who drafted the plan (spec 004), as `plan_generated` and `plan_rejected` report it. */
function provenance(plan: PlanGraph): EventPayload<'plan_generated'>['metadata'] {
  const { plannerId, plannerVersion, determinism, inputHash, resumed, fallbackReason } = plan.metadata;
  return {
    plannerId,
    plannerVersion,
    determinism,
    inputHash,
    ...(resumed === undefined ? {} : { resumed }),
    ...(fallbackReason === undefined ? {} : { fallbackReason }),
  };
}

/** A clear message: how many attempts, and the first blocking findings with their suggestions. */
function failureReason(attempt: number, bundle: DiagnosticsBundle): string {
  const blocking = bundle.failures.filter((d) => d.status === 'unsatisfied');
  const shown = blocking
    .slice(0, 3)
    .map((d) => `${d.constraint ?? d.cause}${d.suggestion ? ` (${d.suggestion.split('\n')[0]})` : ''}`);
  const more = blocking.length > shown.length ? `; and ${blocking.length - shown.length} more` : '';
  return `no valid plan after ${attempt} attempt(s): ${shown.join('; ')}${more}`.slice(0, 8_000);
}

/** The trimmed node view (spec 000 §5.9.4). */
export const trimNodes = summarizePlan;
