import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { FlexEventContext } from '@flex/bus';
import type { EventPayload } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { evolveRun, initialRunState, runMetadata, type StartedRun } from '@flex/run-model';
import { activeRegistrations, fetchCapabilitySnapshot, RUNTIME, runCommand, type ServiceRuntime } from '@flex/runtime';
import { decidePlan, type PlanOutcome } from './plan/planner.decide';
import type { Planner, PlannerRequest, ReplanContext } from './plan/planner';
import { plannerFromConfig } from './plan/planner-registry';

const WORKING_INTERVAL_MS = 5_000;

@Controller()
export class PlannerHandler {
  private readonly planner: Planner;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.planner = plannerFromConfig(runtime.config);
  }

  /** plan_requested → load the run → draft a plan over the live registry → append plan_drafted (or run_failed). */
  @EventPattern('plan_requested')
  async onPlanRequested(@Payload() event: StoredEvent, @Ctx() ctx?: FlexEventContext): Promise<void> {
    const { store, messaging, prefix, metrics, clock } = this.runtime;
    const history = await store.readStream(event.streamId);
    const state = history.reduce(evolveRun, initialRunState());
    if (state.status === 'none' || state.pendingPlanRequest?.eventId !== event.id) return;
    const request = event.payload as EventPayload<'plan_requested'>;
    const replans = history.filter((e) => e.type === 'plan_requested' && (e.payload as EventPayload<'plan_requested'>).reason === 'replan').length;
    let outcome: PlanOutcome;
    if (request.reason === 'replan' && replans > this.runtime.config.FLEX_MAX_REPLANS) {
      outcome = { kind: 'replan_limit', replans, max: this.runtime.config.FLEX_MAX_REPLANS };
    } else {
      const snapshot = await fetchCapabilitySnapshot(messaging, prefix);
      const started = clock.now().getTime();
      // An LLM call can outlast the ack deadline: keep the delivery ours while the planner works.
      const heartbeat = setInterval(() => ctx?.getDelivery().working(), WORKING_INTERVAL_MS);
      const result = await this.planner.plan(plannerRequest(state, request, activeRegistrations(snapshot))).finally(() => clearInterval(heartbeat));
      metrics.inc('flex.planner.requests', { planner: this.planner.id });
      metrics.observe('flex.planner.duration_ms', clock.now().getTime() - started, { planner: this.planner.id });
      outcome = { kind: 'planned', result };
    }
    await runCommand({
      store,
      streamId: event.streamId,
      initial: initialRunState,
      evolve: evolveRun,
      decide: (s) => decidePlan(s, event.id, outcome),
      metadata: (s) => runMetadata(s, event, 'planner'),
      idempotencyKey: `planner:${event.id}`,
      clock,
      ids: this.runtime.ids,
    });
  }
}

function plannerRequest(state: StartedRun, request: EventPayload<'plan_requested'>, capabilities: PlannerRequest['capabilities']): PlannerRequest {
  return {
    envelope: state.envelope,
    capabilities,
    planVersion: state.planVersion + 1,
    attempt: request.attempt,
    diagnostics: request.diagnostics ?? (request.reason === 'rejected' ? state.lastDiagnostics : undefined),
    replan: request.replan && state.plan ? replanContext(state, request.replan) : undefined,
  };
}

function replanContext(state: StartedRun, replan: NonNullable<EventPayload<'plan_requested'>['replan']>): ReplanContext {
  const completed: Record<string, Record<string, unknown>> = {};
  for (const [nodeId, node] of Object.entries(state.nodes)) if (node.status === 'completed') completed[nodeId] = node.output ?? {};
  return { trigger: replan.trigger, previousVersion: replan.previousVersion, previousPlan: state.plan!, completed };
}
