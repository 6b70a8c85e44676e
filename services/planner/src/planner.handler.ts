import { decision } from '@flex/decider';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { FlexEventContext } from '@flex/bus';
import { type EventPayload, type PlannerError, type PlannerOutput } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import {
  askedPlanRequest,
  evolveRun,
  initialRunState,
  payloadOf,
  replanLimitFailure,
  runMetadata,
  type StartedRun,
} from '@flex/run-model';
import {
  activeRegistrations,
  boundedLabel,
  loadState,
  keptRegistrySnapshot,
  RUNTIME,
  runCommand,
  type CapabilitySnapshot,
  type ServiceRuntime,
} from '@flex/runtime';
import { ATTR, inSpan, type Span } from '@flex/tracing';
import { ruleBasedFallback } from './llm/rule-based-fallback';
import { decidePlan, draftedOver, type Planned, type PlanOutcome } from './plan/planner.decide';
import type { KnownCapability } from './plan/planner-error.diagnostics';
import { isPlannerError, type Planner, type PlannerRequest } from './plan/planner';
import { plannerRequest } from './plan/planner-request';
import { plannerFromConfig } from './plan/planner-registry';

const WORKING_INTERVAL_MS = 5_000;
const RUN_FOLD = { initialState: initialRunState, evolve: evolveRun };

type PlanRequest = EventPayload<'plan_requested'>;

@Controller()
export class PlannerHandler {
  private readonly planner: Planner;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.planner = plannerFromConfig(runtime.config);
  }

  /** plan_requested → load the run → draft a plan over the live registry → append plan_drafted (or run_failed). */
  @EventPattern('plan_requested')
  async onPlanRequested(@Payload() event: StoredEvent, @Ctx() ctx?: FlexEventContext): Promise<void> {
    const { store } = this.runtime;
    const { state } = await loadState(store, event.streamId, RUN_FOLD, this.runtime.streamStates);
    if (state.status === 'none' || !askedPlanRequest(state, event.id)) return;
    const request = payloadOf(event, 'plan_requested');
    await inSpan(
      request.reason === 'replan' ? 'plan.replan' : 'plan.draft',
      draftSpan(state, request),
      (span) => this.answer(event, state, request, span, ctx),
    );
  }

  private async answer(
    event: StoredEvent,
    state: StartedRun,
    request: PlanRequest,
    span: Span,
    ctx?: FlexEventContext,
  ): Promise<void> {
    const { store, clock } = this.runtime;
    // The one replan bound (run-model): the fold has counted this request among the run's replans.
    const refused =
      request.reason === 'replan'
        ? replanLimitFailure(state.replans, this.runtime.config.FLEX_MAX_REPLANS, 'the run')
        : undefined;
    const outcome: PlanOutcome = refused
      ? { kind: 'replan_limit', ...refused }
      : await this.draft(state, request, ctx);
    span.setAttribute(ATTR.outcome, outcomeOf(outcome));
    await runCommand({
      store,
      streamId: event.streamId,
      fold: RUN_FOLD,
      decide: (s) => decision(decidePlan(s, event.id, outcome)),
      metadata: (s) => runMetadata(s, event, 'planner'),
      idempotencyKey: `planner:${event.id}`,
      clock,
      ids: this.runtime.ids,
      cache: this.runtime.streamStates,
    });
  }

  /**
   * Ask the planner over the registry as it is now, and keep that registry with the answer: the
   * draft records exactly what the planner was given. A request naming a fallback gets the
   * rule-based planner, whatever is configured.
   */
  private async draft(state: StartedRun, request: PlanRequest, ctx?: FlexEventContext): Promise<Planned> {
    const { metrics, clock } = this.runtime;
    const snapshot = await keptRegistrySnapshot(this.runtime, ctx);
    const active = activeRegistrations(snapshot);
    const input = plannerRequest(state, request, active);
    const plannerId = request.fallback ? request.fallback.planner : this.planner.id;
    const started = clock.now().getTime();
    // An LLM call can outlast the ack deadline: keep the delivery ours while the planner works.
    const heartbeat = setInterval(() => ctx?.getDelivery().working(), WORKING_INTERVAL_MS);
    const result = await this.plan(input, request).finally(() => clearInterval(heartbeat));
    const planner = boundedLabel(plannerId);
    metrics.observe(
      { family: 'planDraftDuration', labels: { planner } },
      (clock.now().getTime() - started) / 1000,
    );
    return { kind: 'planned', result, ...draftedOver(active), known: knownOf(snapshot) };
  }

  private async plan(input: PlannerRequest, request: PlanRequest): Promise<PlannerOutput | PlannerError> {
    if (!request.fallback) return this.planner.plan(input);
    return ruleBasedFallback(input, `${request.fallback.reason}: ${request.fallback.message}`);
  }
}

/** A planning attempt's span: one per `plan_requested` answered (`plan.replan` for a replan). */
function draftSpan(state: StartedRun, request: PlanRequest) {
  return {
    attributes: {
      [ATTR.runId]: state.runId,
      [ATTR.planAttempt]: request.attempt,
      [ATTR.planReason]: request.reason,
      [ATTR.planVersion]: state.planVersion + 1,
    },
  };
}

/** `planned`, or why there is no draft (the planner's error code, or the replan limit). */
function outcomeOf(outcome: PlanOutcome): string {
  if (outcome.kind !== 'planned') return outcome.code;
  return isPlannerError(outcome.result) ? outcome.result.code : 'planned';
}

function knownOf(snapshot: CapabilitySnapshot): KnownCapability[] {
  return snapshot.capabilities.map(({ registration, status }) => ({
    capabilityId: registration.capabilityId,
    status,
    outputContract: registration.outputContract,
  }));
}
