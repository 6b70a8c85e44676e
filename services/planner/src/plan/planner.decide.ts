import {
  PlannerErrorSchema,
  registrySnapshotOf,
  runEvent,
  type CapabilityRegistration,
  type PlannerError,
  type PlannerOutput,
  type RegistrySnapshot,
} from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import { bindContract } from '@flex/proof';
import {
  askedPlanRequest,
  isTerminal,
  replanForNodeFailure,
  type RunState,
  type StartedRun,
} from '@flex/run-model';
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
  /** Those registrations, sorted by id: recorded with a draft, so a replay re-plans from the record. */
  registrations?: readonly CapabilityRegistration[];
  /** Every capability the registry knows, with its status, for the suggestions of a failure. */
  known?: readonly KnownCapability[];
}

/** What the adapter learned for one plan request: the planner's answer, or that the replan budget is spent. */
export type PlanOutcome = Planned | { kind: 'replan_limit'; code: 'replan_limit'; reason: string };

/**
 * React to one plan request: a draft for the validator, recorded with the registry the planner saw;
 * or, when the planner says the goal cannot be planned, its diagnostics (naming what is missing) in a
 * rejection or a failed run (see {@link noPlan}); or a failed run when the run has used up its replans.
 * A request that is no longer the one asked decides nothing (duplicate delivery, or a later attempt
 * already superseded it).
 */
export function decidePlan(
  state: RunState,
  requestEventId: string,
  outcome: PlanOutcome,
): DecidedFlexEvent[] {
  if (state.status === 'none' || isTerminal(state)) return [];
  const request = askedPlanRequest(state, requestEventId);
  if (!request) return [];
  if (outcome.kind === 'replan_limit')
    return [runEvent('run_failed', { code: outcome.code, reason: outcome.reason })];
  const { result } = outcome;
  if (isPlannerError(result)) return [noPlan(state, request.attempt, result, outcome)];
  return [drafted(state, request.attempt, result, outcome)];
}

/** The registry a planner is given, as a draft records it: its snapshot and the registrations by id. */
export function draftedOver(
  active: readonly CapabilityRegistration[],
): Pick<Planned, 'registry' | 'registrations'> {
  const registrations = [...active].sort((a, b) =>
    a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0,
  );
  return { registry: registrySnapshotOf(registrations), registrations };
}

/**
 * The planner found no plan. For a replan a node's failure asked for, that is a refused replan, as
 * when the validator refuses its drafts to the end: only `plan_rejected` (the planner's, with no
 * draft), the run keeps its plan and the executor takes the node on down its repair chain
 * (docs/lifecycle.md). A first plan, or a replan asked for anything else, fails the run.
 */
function noPlan(state: StartedRun, attempt: number, error: PlannerError, planned: Planned): DecidedFlexEvent {
  const { registry, known } = planned;
  const diagnostics = plannerErrorDiagnostics(error, state.envelope, known);
  if (replanForNodeFailure(state))
    return runEvent('plan_rejected', {
      source: 'planner',
      attempt,
      plannerError: error,
      registry,
      diagnostics,
    });
  const reason = `planner: ${error.message}`.slice(0, 8_000);
  return runEvent('run_failed', { code: error.code, reason, diagnostics, registry });
}

function drafted(
  state: StartedRun,
  attempt: number,
  result: PlannerOutput,
  { registry, registrations }: Planned,
): DecidedFlexEvent {
  const fallbackError = PlannerErrorSchema.safeParse(result.metadata.plannerError);
  // Whatever planner drafted it (an LLM's draft too), the contract binds the plan before the proof.
  const plan = bindContract(splitIntoLanes(result.plan, state.envelope), state.envelope);
  return runEvent('plan_drafted', {
    attempt,
    plan,
    planHash: planHash(plan),
    registry,
    ...(registrations ? { registrations: [...registrations] } : {}),
    ...(fallbackError.success ? { plannerError: fallbackError.data } : {}),
  });
}
