import type { ActiveRun } from '../run.state';
import {
  evaluatePolicies,
  runtimePolicies,
  type PolicyFiring,
  type PolicyTriggerInput,
} from './policy.evaluate';

/** A node event's trigger: what `onNodeComplete` and `onValidationFail` policies watch. */
export type NodeTriggerInput = Extract<PolicyTriggerInput, { kind: 'onNodeComplete' | 'onValidationFail' }>;

/** The key a firing is recorded under in `policyFirings` (and a due firing is known by). */
export function firingKey(policyId: string, trigger: Record<string, unknown>): string {
  return `${policyId}|${typeof trigger.key === 'string' ? trigger.key : String(trigger.kind)}`;
}

/**
 * The fold's verdict on a node event: every policy watching it is evaluated on the state right after
 * the event (at the event's time), and what fires is owed until a `policy_triggered` records it.
 * Whichever executor reaction decides next acts on what is owed before it moves the run, so no
 * reaction, however the executor's deliveries interleave, can start a node or end the run past a
 * gate that fired; and the verdict does not depend on when, or by which reaction, it is acted on.
 */
export function withNodeVerdict(state: ActiveRun, input: NodeTriggerInput, at: string): ActiveRun {
  if (state.status === 'planning') return state;
  if (!runtimePolicies(state).some((p) => p.trigger.kind === input.kind)) return state;
  const firings = evaluatePolicies(state, input, new Date(at));
  if (firings.length === 0) return state;
  return { ...state, dueFirings: [...(state.dueFirings ?? []), ...firings] };
}

/** A `policy_triggered` acts on what was owed under its key. */
export function withoutDue(state: ActiveRun, key: string): ActiveRun {
  if (!state.dueFirings) return state;
  const left = state.dueFirings.filter((f) => firingKey(f.policy.id, f.trigger) !== key);
  if (left.length === state.dueFirings.length) return state;
  const { dueFirings: _dueFirings, ...rest } = state;
  return (left.length ? { ...rest, dueFirings: left } : rest) as ActiveRun;
}

export type { PolicyFiring };
