import { summarizePlan, type CapabilityRegistration, type DiagnosticsBundle, type EventPayload, type PlanGraph } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import type { DecidedEvent } from '@flex/runtime';
import { evolveRun, initialRunState, policyKeys, type ActiveRun, type RunState } from '@flex/run-model';
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
    const request = event.payload as PlanRequest;
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
  maxAttempts: number;
}

/**
 * Prove a draft (DESIGN §5.3): accepted → `plan_generated` (first plan) or `plan_updated` (the run
 * already has a plan: a replan); rejected → `plan_rejected` and either a new `plan_requested`
 * carrying the diagnostics or, past the attempt limit, `run_failed` with them.
 */
export function decideValidation(state: ValidatorState | RunState, input: ValidationInput): DecidedEvent[] {
  const { run, replan } = 'run' in state ? state : { run: state, replan: undefined };
  // Any live run: a replan requested during a HITL wait or a pause must not leave its draft unproven.
  if (run.status === 'none' || run.status === 'completed' || run.status === 'failed') return [];
  if (run.pendingDraft?.eventId !== input.draftEventId) return [];
  const bundle = provePlan(input.draft.plan, run.envelope, input.active);
  if (bundle.status !== 'rejected') return [accepted(run, input.draft, bundle, replan)];
  const attempt = input.draft.attempt;
  const rejected: DecidedEvent = { type: 'plan_rejected', payload: { attempt, diagnostics: bundle } };
  if (attempt < input.maxAttempts) {
    const reason = run.planVersion > 0 ? 'replan' : 'rejected';
    const request = { attempt: attempt + 1, reason, policyKeys: policyKeys(run.envelope), diagnostics: bundle, ...(replan ? { replan } : {}) };
    return [rejected, { type: 'plan_requested', payload: request }];
  }
  return [rejected, { type: 'run_failed', payload: { code: 'plan_rejected', reason: failureReason(attempt, bundle), diagnostics: bundle } }];
}

function accepted(run: ActiveRun, draft: EventPayload<'plan_drafted'>, bundle: DiagnosticsBundle, replan: ValidatorState['replan']): DecidedEvent {
  const version = run.planVersion + 1;
  const plan: PlanGraph = { ...draft.plan, planVersion: version };
  const findings = { ...bundle, status: bundle.status as 'accepted' | 'accepted_with_findings' };
  if (run.planVersion > 0) {
    return {
      type: 'plan_updated',
      payload: { previousVersion: run.planVersion, version, plan, nodes: summarizePlan(plan), trigger: replan?.trigger ?? {}, planHash: draft.planHash, ...findings },
    };
  }
  const { plannerId, plannerVersion, determinism, inputHash, resumed } = plan.metadata;
  return {
    type: 'plan_generated',
    payload: {
      planVersion: version,
      plan,
      nodes: summarizePlan(plan),
      ...findings,
      planHash: draft.planHash,
      metadata: { plannerId, plannerVersion, determinism, inputHash, ...(resumed === undefined ? {} : { resumed }) },
    },
  };
}

/** A clear message: how many attempts, and the first blocking findings with their suggestions. */
function failureReason(attempt: number, bundle: DiagnosticsBundle): string {
  const blocking = bundle.failures.filter((d) => d.status === 'unsatisfied');
  const shown = blocking.slice(0, 3).map((d) => `${d.constraint ?? d.cause}${d.suggestion ? ` (${d.suggestion.split('\n')[0]})` : ''}`);
  const more = blocking.length > shown.length ? `; and ${blocking.length - shown.length} more` : '';
  return `no valid plan after ${attempt} attempt(s): ${shown.join('; ')}${more}`.slice(0, 8_000);
}

/** The trimmed node view (spec 000 §5.9.4). */
export const trimNodes = summarizePlan;
