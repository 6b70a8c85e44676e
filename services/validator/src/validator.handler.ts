import { decision } from '@flex/decider';
import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { FlexEventContext } from '@flex/bus';
import type { StoredEvent } from '@flex/event-store';
import { runIdFromStreamId } from '@flex/contracts';
import { payloadOf, runMetadata } from '@flex/run-model';
import {
  activeRegistrations,
  keptRegistrySnapshot,
  RUNTIME,
  runCommand,
  type ServiceRuntime,
} from '@flex/runtime';
import { ATTR, inSpan, type Span } from '@flex/tracing';
import { decideValidation, evolveValidator, initialValidatorState } from './validation/validator.decide';

@Controller()
export class ValidatorHandler {
  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {}

  /** plan_drafted → prove the draft against the contract and the live registry (plan_generated, plan_updated or plan_rejected). */
  @EventPattern('plan_drafted')
  async onPlanDrafted(@Payload() event: StoredEvent, @Ctx() ctx?: FlexEventContext): Promise<void> {
    const attributes = { [ATTR.runId]: runIdFromStreamId(event.streamId) ?? event.streamId };
    await inSpan('plan.prove', { attributes }, (span) => this.prove(event, span, ctx));
  }

  /** The verdict on the draft: its event type (`plan_generated`, `plan_updated`, `plan_rejected`) is the span's outcome. */
  private async prove(event: StoredEvent, span: Span, ctx?: FlexEventContext): Promise<void> {
    const { store, config } = this.runtime;
    // A registry briefly unreachable is waited for (FLEX_UNREACHABLE_BUDGET_MS), not a failed proof.
    const snapshot = await keptRegistrySnapshot(this.runtime, ctx);
    const active = activeRegistrations(snapshot);
    const result = await runCommand({
      store,
      streamId: event.streamId,
      fold: { initialState: initialValidatorState, evolve: evolveValidator },
      decide: (s) =>
        decision(
          decideValidation(s, {
            draftEventId: event.id,
            draft: payloadOf(event, 'plan_drafted'),
            active,
            maxAttempts: config.FLEX_MAX_PLAN_ATTEMPTS,
            maxReplans: config.FLEX_MAX_REPLANS,
          }),
        ),
      metadata: (s) => runMetadata(s.run, event, 'validator'),
      idempotencyKey: `validator:${event.id}`,
      clock: this.runtime.clock,
      ids: this.runtime.ids,
      cache: this.runtime.streamStates,
    });
    const verdict = result.appended.find((e) => e.type !== 'log');
    if (verdict) span.setAttribute(ATTR.outcome, verdict.type);
  }
}
