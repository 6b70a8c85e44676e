import type { CapabilityRegistration, EventPayload } from '@flex/contracts';
import { takenFromRecord, type Redecision, type ReplayAdapter, type ReplayStep } from '@flex/replay';
import { decideValidation, evolveValidator, initialValidatorState } from './validator.decide';

/** What the validator decides with that is configuration, not record. */
export interface ValidatorReplaySettings {
  /** `FLEX_MAX_PLAN_ATTEMPTS`. */
  maxAttempts: number;
  /** `FLEX_MAX_REPLANS`. */
  maxReplans: number;
}

/**
 * The validator's decisions, taken again (docs/AUDIT.md, "Verified replay"): `decideValidation` of
 * the recorded draft on the run before it, over the registrations the draft recorded (the registry
 * the planner saw, which the validator's own look a moment later is taken to equal). A draft
 * recorded before drafts carried their registrations is taken from the record.
 */
export function validatorReplayAdapter(settings: ValidatorReplaySettings): ReplayAdapter {
  return { producer: 'validator', redecide: (step) => redecide(step, settings) };
}

function redecide(step: ReplayStep, settings: ValidatorReplaySettings): Redecision[] {
  const { trigger, history, recorded } = step;
  if (trigger?.type !== 'plan_drafted') throw new Error('a validator decision answers a plan_drafted');
  const draft = trigger.payload as EventPayload<'plan_drafted'>;
  if (!draft.registrations) return [takenFromRecord(recorded)];
  const state = history.reduce(evolveValidator, initialValidatorState());
  const events = decideValidation(state, {
    draftEventId: trigger.id,
    draft,
    active: draft.registrations as CapabilityRegistration[],
    ...settings,
  });
  return [{ via: 'decideValidation', events }];
}
