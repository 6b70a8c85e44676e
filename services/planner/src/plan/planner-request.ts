import type { EventPayload } from '@flex/contracts';
import type { StartedRun } from '@flex/run-model';
import type { PlannerRequest, ReplanContext } from './planner';

type PlanRequest = EventPayload<'plan_requested'>;

/** What the planner is asked for one plan request: the run's envelope, the registry, the feedback so far. */
export function plannerRequest(
  state: StartedRun,
  request: PlanRequest,
  capabilities: PlannerRequest['capabilities'],
): PlannerRequest {
  return {
    envelope: state.envelope,
    capabilities,
    planVersion: state.planVersion + 1,
    attempt: request.attempt,
    diagnostics: request.diagnostics ?? (request.reason === 'rejected' ? state.lastDiagnostics : undefined),
    replan: request.replan && state.plan ? replanContext(state, state.plan, request.replan) : undefined,
  };
}

function replanContext(
  state: StartedRun,
  previousPlan: NonNullable<StartedRun['plan']>,
  replan: NonNullable<PlanRequest['replan']>,
): ReplanContext {
  const completed: Record<string, Record<string, unknown>> = {};
  for (const [nodeId, node] of Object.entries(state.nodes)) {
    if (node.status === 'completed') completed[nodeId] = node.output ?? {};
  }
  return { trigger: replan.trigger, previousVersion: replan.previousVersion, previousPlan, completed };
}
