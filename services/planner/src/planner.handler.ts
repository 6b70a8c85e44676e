import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { StoredEvent } from '@flex/event-store';
import { evolveRun, initialRunState, runMetadata } from '@flex/run-model';
import { activeRegistrations, fetchCapabilitySnapshot, RUNTIME, runCommand, type ServiceRuntime } from '@flex/runtime';
import { decidePlan } from './plan/planner.decide';
import { planRuleBased } from './plan/rule-based.planner';

@Controller()
export class PlannerHandler {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** plan_requested → load the run → draft a plan over the live registry → append plan_drafted. */
  @EventPattern('plan_requested')
  async onPlanRequested(@Payload() event: StoredEvent): Promise<void> {
    const { store, messaging, prefix } = this.runtime;
    const history = await store.readStream(event.streamId);
    const state = history.reduce(evolveRun, initialRunState());
    if (state.status === 'none' || state.pendingPlanRequest?.eventId !== event.id) return;
    const snapshot = await fetchCapabilitySnapshot(messaging, prefix);
    const started = Date.now();
    const result = planRuleBased({
      envelope: state.envelope,
      capabilities: activeRegistrations(snapshot),
      planVersion: state.planVersion + 1,
      attempt: state.planAttempt,
      diagnostics: state.lastDiagnostics,
    });
    this.runtime.metrics.inc('flex.planner.requests');
    this.runtime.metrics.observe('flex.planner.duration_ms', Date.now() - started);
    await runCommand({
      store,
      streamId: event.streamId,
      initial: initialRunState,
      evolve: evolveRun,
      decide: (s) => decidePlan(s, event.id, result),
      metadata: (s) => runMetadata(s, event, 'planner'),
      idempotencyKey: `planner:${event.id}`,
      clock: this.runtime.clock,
      ids: this.runtime.ids,
    });
  }
}
