import {
  PlannerErrorSchema,
  runEvent,
  type PlannerError,
  type PlannerOutput,
  type RegistrySnapshot,
} from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import { bindContract } from '@flex/proof';
import { askedPlanRequest, isTerminal, type RunState, type StartedRun } from '@flex/run-model';
import { splitIntoLanes } from './lanes';
import { isPlannerError } from './planner';
import { plannerErrorDiagnostics, type KnownCapability } from './planner-error.diagnostics';
import { planHash } from './planner-input';

/** The planner's answer to one request, with the registry it drafted over. */
export interface Planned {
  kind: 'planned';
  result: PlannerOutput | PlannerError;
  /** What the planner was given: every active capability (see `registrySnapshotOf`). */
  registry: RegistrySnapshot;
  /** Every capability the registry knows, with its status, for the suggestions of a failure. */
  known?: readonly KnownCapability[];
}

/** What the adapter learned for one plan request: the planner's answer, or that the replan budget is spent. */
export type PlanOutcome = Planned | { kind: 'replan_limit'; code: 'replan_limit'; reason: string };

/**
 * React to one plan request: a draft for the validator, recorded with the registry the planner saw;
 * or a failed run when the planner says the goal cannot be planned (with a diagnostics bundle naming
 * what is missing) or the run has used up its replans. A request that is no longer the pending one
 * decides nothing (duplicate delivery, or a later attempt already superseded it).
 */
export function decidePlan(state: RunState, requestEventId: string, outcome: PlanOutcome): DecidedEvent[] {
  if (state.status === 'none' || isTerminal(state)) return [];
  const request = askedPlanRequest(state, requestEventId);
  if (!request) return [];
  if (outcome.kind === 'replan_limit')
    return [runEvent('run_failed', { code: outcome.code, reason: outcome.reason })];
  return [drafted(state, request.attempt, outcome)];
}

function drafted(state: StartedRun, attempt: number, { result, registry, known }: Planned): DecidedEvent {
  if (isPlannerError(result)) {
    const diagnostics = plannerErrorDiagnostics(result, state.envelope, known);
    const reason = `planner: ${result.message}`.slice(0, 8_000);
    return runEvent('run_failed', { code: result.code, reason, diagnostics, registry });
  }
  const fallbackError = PlannerErrorSchema.safeParse(result.metadata.plannerError);
  // Whatever planner drafted it (an LLM's draft too), the contract binds the plan before the proof.
  const plan = bindContract(splitIntoLanes(result.plan, state.envelope), state.envelope);
  return runEvent('plan_drafted', {
    attempt,
    plan,
    planHash: planHash(plan),
    registry,
    ...(fallbackError.success ? { plannerError: fallbackError.data } : {}),
  });
}
