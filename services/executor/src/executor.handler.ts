import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { FlexEventContext } from '@flex/bus';
import {
  runIdFromStreamId,
  secretRefIds,
  type CapabilityRegistration,
  type EventPayload,
  type PlanNode,
} from '@flex/contracts';
import { payloadOf, type StoredEvent } from '@flex/event-store';
import { decision, effectsOf, NO_DECISION } from '@flex/decider';
import {
  evolveRun,
  initialRunState,
  isPlanned,
  isTerminal,
  runMetadata,
  type RunLimits,
  type RunState,
  type StartedRun,
} from '@flex/run-model';
import {
  activeRegistrations,
  keepingAlive,
  registrySnapshot,
  RUNTIME,
  runCommand,
  type ServiceRuntime,
} from '@flex/runtime';
import { ATTR, inSpan } from '@flex/tracing';
import { callAgent } from './agent.client';
import { endAttempt, nodeAttemptSpan, tracePolicyFirings } from './executor.spans';
import { recordAttempt } from './agent-call.metrics';
import { capabilityViewOf, registrationOf, unreachableClock } from './registry.lookup';
import { buildInvocation } from './run/context-builder';
import { askedSecretFacets, revealSecretInputs } from './run/secret-inputs';
import { secretFreeOutcome } from './run/secret-free-outcome';
import { needsRegistry, wakeOf, type ExecutorDecision } from './run/executor.decision';
import { type InvokeOutcome, type RetryPolicy } from './run/invoke.decide';
import { decideAttempt, unreachableLine } from './run/unreachable.decide';
import { decideWithdrawal, standInOf } from './run/withdrawal.decide';
import { retryPolicy } from './run/retry.decide';
import { storableOutcome } from './run/storable-outcome';
import { decideNodeStart } from './run/node-start.decide';
import { decideOnEvent, decideReaction, decideTimers } from './run/run.decide';

/**
 * The executor's adapter: every handler loads the run from the store, calls a pure decider, appends
 * its events with the expected version, then performs its effects (invoke an agent, hold the
 * delivery for a timer, ask the registry and decide again) and decides nothing itself. Nothing lives
 * in memory that the store cannot rebuild: timers (retry backoff, the run deadline) are deliveries
 * held back with a delayed nak.
 */
@Controller()
export class ExecutorHandler {
  private readonly retry: RetryPolicy;
  private readonly limits: RunLimits;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.retry = retryPolicy(runtime.config.FLEX_NODE_MAX_ATTEMPTS);
    this.limits = {
      maxReplans: runtime.config.FLEX_MAX_REPLANS,
      maxHitlRequests: runtime.config.FLEX_MAX_HITL_REQUESTS,
    };
  }

  /** The first accepted plan: `onStart` policies, the first nodes, and the run's deadline timer. */
  @EventPattern('plan_generated')
  async onPlanGenerated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const reaction = await this.react(event, ctx);
    const timers = await this.command(event, undefined, (s) =>
      decideTimers(s, this.runtime.clock.now(), this.limits),
    );
    hold(ctx, [reaction, timers.decision]);
  }

  @EventPattern('plan_updated')
  async onPlanUpdated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  /** A replan that found no valid plan: the run goes on with the one it has. */
  @EventPattern('plan_rejected')
  async onPlanRejected(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  @EventPattern('node_complete')
  async onNodeComplete(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  /** A retry that is not due yet comes back through a delayed redelivery of the node_error. */
  @EventPattern('node_error')
  async onNodeError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  @EventPattern('validation_error')
  async onValidationError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  /** An operator decided: run the follow-up action (resume, fail, nested hitl, replan…), then advance. */
  @EventPattern('hitl_resolved')
  async onHitlResolved(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  /** Resumed: the decisions made during the pause take effect, then the run advances. */
  @EventPattern('run_resumed')
  async onRunResumed(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event, ctx)]);
  }

  /**
   * node_start → the decider says what to do (ask an operator for a human capability's output, or
   * invoke the agent); the agent's answer is the next command, keyed by the node_start so that a
   * redelivery records it once (the agent dedupes on the idempotency key `runId:nodeId:attempt`).
   */
  @EventPattern('node_start')
  async onNodeStart(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const start = payloadOf(event, 'node_start');
    const registration = start.capabilityId
      ? await registrationOf(this.runtime, ctx, start.capabilityId)
      : undefined;
    const agentType = registration?.agentType;
    const key = `executor:invoke:${event.id}`;
    const started = await this.command(event, key, (s) =>
      decideNodeStart(s, { start, agentType }, this.limits),
    );
    const { state } = started;
    const decisions: ExecutorDecision[] = [];
    for (const effect of effectsOf(started.decision, 'invoke')) {
      if (!isPlanned(state)) return;
      const node = state.plan.nodes.find((n) => n.id === effect.nodeId);
      if (!node) return;
      const call = {
        ...effect,
        registration: this.same(registration, effect),
        traceparent: event.metadata.traceparent,
      };
      const outcome = await inSpan('node.attempt', nodeAttemptSpan(state, call), async (span) => {
        // Checked before the append: an answer Postgres refuses is an invalid output, not a poison message.
        const answered = storableOutcome(await keepingAlive(ctx, () => this.invoke(state, node, call)));
        endAttempt(span, answered);
        return answered;
      });
      recordAttempt(this.runtime.metrics, effect.capabilityId, outcome);
      const options = { retry: this.retry, unreachable: unreachableClock(this.runtime, event, ctx) };
      const decided = await this.command(event, key, (s) =>
        decideAttempt(s, effect.nodeId, effect.attempt, outcome, options),
      );
      if (wakeOf(decided.decision) !== undefined && !outcome.ok) {
        const line = unreachableLine(effect.capabilityId, outcome.error.code, options.unreachable);
        await this.logOnRun(event, 'executor:log:unreachable', line);
      }
      decisions.push(decided.decision);
    }
    hold(ctx, decisions);
  }

  /**
   * A human request standing in for an unreachable agent is withdrawn once the registry has seen
   * that agent again (`decideWithdrawal`); until then it is looked at again later (the delivery is
   * held with a delayed nak). Any other request is the operator's: nothing to do.
   */
  @EventPattern('hitl_request')
  async onHitlRequest(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const { requestId } = payloadOf(event, 'hitl_request');
    const { state } = await this.command(event, undefined, () => NO_DECISION);
    const standIn = standInOf(state, requestId);
    if (!standIn) return;
    const seen = await capabilityViewOf(this.runtime, standIn.capabilityId);
    const request = { requestId, raisedAt: event.timestamp };
    const clock = unreachableClock(this.runtime, event, ctx);
    const withdrawal = await this.command(event, `executor:withdraw:${event.id}`, (s) =>
      decideWithdrawal(s, request, seen, clock),
    );
    hold(ctx, [withdrawal.decision]);
  }

  /**
   * One attempt: reveal the run's secrets for the facets that ask (the only place a secret's value
   * is handled), call the agent, and keep every secret out of what its answer makes us append.
   */
  private async invoke(state: StartedRun, node: PlanNode, call: InvokeCall): Promise<InvokeOutcome> {
    const { config, secrets } = this.runtime;
    const built = buildInvocation(state, node, call.attempt, config.FLEX_AGENT_TIMEOUT_MS);
    const ids = secretRefIds(state.envelope);
    if (ids.length === 0)
      return callAgent(this.runtime, { ...built, capabilityId: call.capabilityId }, node, call.traceparent);
    const asked = askedSecretFacets(built, call.registration);
    if (asked.refused.length > 0)
      return refusedBeforeCall(
        'secret_unavailable',
        `${call.capabilityId} does not declare ${asked.refused.join(', ')} in its registration`,
        call.registration === undefined,
      );
    let values: Map<string, unknown>;
    try {
      values = await secrets.reveal(state.runId, ids);
    } catch (error) {
      const e = error as { code?: string; message?: string };
      return refusedBeforeCall(e.code ?? 'secret_unavailable', e.message ?? String(error), false);
    }
    const invocation = revealSecretInputs(
      { ...built, capabilityId: call.capabilityId },
      asked.facets,
      values,
    );
    return secretFreeOutcome(await callAgent(this.runtime, invocation, node, call.traceparent), [
      ...values.values(),
    ]);
  }

  /**
   * Decide the reaction to `event` and append it, keyed by the event: handled twice, it appends
   * once. A wait it leaves behind (a retry not due yet) comes back as a `wake` effect; the
   * redelivery finds the reaction appended and only moves the run forward (a decision that depends
   * on the run's state alone, so it needs no key: a second one finds nothing to do).
   */
  private react(event: StoredEvent, ctx: FlexEventContext): Promise<ExecutorDecision> {
    const attributes = {
      [ATTR.runId]: runIdFromStreamId(event.streamId) ?? event.streamId,
      [ATTR.eventType]: event.type,
    };
    return inSpan('run.advance', { attributes }, () => this.advance(event, ctx));
  }

  private async advance(event: StoredEvent, ctx: FlexEventContext): Promise<ExecutorDecision> {
    const options = (fallbacks?: readonly CapabilityRegistration[]) => ({
      limits: this.limits,
      retry: this.retry,
      fallbacks,
    });
    const now = () => this.runtime.clock.now();
    const first = await this.decideWithRegistry(ctx, `executor:advance:${event.id}`, (s, f) =>
      decideReaction(s, event, now(), options(f)),
    );
    if (!first.duplicate) return first.decision;
    const again = await this.decideWithRegistry(ctx, undefined, (s, f) =>
      decideOnEvent(s, [], now(), options(f)),
    );
    return again.decision;
  }

  /**
   * Run a decider; when it asks for the registry's view (a node failed for good and may fall back
   * to another capability), fetch the snapshot and decide again with it.
   */
  private async decideWithRegistry(
    ctx: FlexEventContext,
    key: string | undefined,
    decide: (s: RunState, fallbacks?: readonly CapabilityRegistration[]) => ExecutorDecision,
  ): Promise<{ decision: ExecutorDecision; duplicate: boolean }> {
    const event = ctx.getDelivery().event;
    let result = await this.command(event, key, (s) => decide(s));
    if (!result.duplicate && needsRegistry(result.decision)) {
      const fallbacks = await this.activeRegistrations(ctx);
      result = await this.command(event, key, (s) => decide(s, fallbacks));
    }
    tracePolicyFirings(result.appended);
    return { decision: result.decision, duplicate: result.duplicate };
  }

  /** The registration fetched for `node_start`, when the effect invokes that capability. */
  private same(
    registration: CapabilityRegistration | undefined,
    effect: { capabilityId: string },
  ): CapabilityRegistration | undefined {
    return registration?.capabilityId === effect.capabilityId ? registration : undefined;
  }

  private command(
    event: StoredEvent,
    idempotencyKey: string | undefined,
    decide: (s: RunState) => ExecutorDecision,
  ) {
    return runCommand({
      store: this.runtime.store,
      streamId: event.streamId,
      fold: { initialState: initialRunState, evolve: evolveRun },
      decide,
      metadata: (s) => runMetadata(s, event, 'executor'),
      idempotencyKey,
      clock: this.runtime.clock,
      ids: this.runtime.ids,
      cache: this.runtime.streamStates,
    });
  }

  /**
   * The registry's active registrations; none when it does not answer within the unreachable budget
   * (said on the run's log too).
   */
  private async activeRegistrations(ctx: FlexEventContext): Promise<CapabilityRegistration[]> {
    const event = ctx.getDelivery().event;
    try {
      return activeRegistrations(await registrySnapshot(this.runtime, ctx));
    } catch (error) {
      const message = 'registry snapshot unavailable; no fallback capability this time';
      this.runtime.logger.warn(message, { error: String(error), streamId: event.streamId });
      await this.logOnRun(event, 'executor:log:registry-unavailable', message);
      return [];
    }
  }

  /**
   * A service line about the run, recorded as its `log` event (once per key, never after the run
   * ended). Best effort: a line that cannot be appended is only in the process log.
   */
  private async logOnRun(event: StoredEvent, key: string, line: string | EventPayload<'log'>): Promise<void> {
    const payload =
      typeof line === 'string' ? { level: 'warn' as const, message: line, source: 'executor' } : line;
    await this.command(event, `${key}:${event.id}`, (s) =>
      decision(s.status === 'none' || isTerminal(s) ? [] : [{ type: 'log', payload }]),
    ).catch((error: unknown) =>
      this.runtime.logger.warn('could not record a log line on the run', { error: String(error) }),
    );
  }
}

interface InvokeCall {
  capabilityId: string;
  attempt: number;
  /** What the registry says serves `capabilityId` now (`undefined`: unknown). */
  registration?: CapabilityRegistration;
  /** The trace of the node_start this call answers (its dispatch log lines carry its ids). */
  traceparent?: string;
}

/** An attempt that ends before the agent is called; `retryable` when asking again may help. */
function refusedBeforeCall(code: string, message: string, retryable: boolean): InvokeOutcome {
  return { ok: false, durationMs: 0, error: { code, message, retryable } };
}

/** Hold the delivery until the earliest wake-up the decisions ask for (a delayed nak), if any. */
function hold(ctx: FlexEventContext, decisions: readonly ExecutorDecision[]): void {
  const waits = decisions.flatMap((d) => {
    const wake = wakeOf(d);
    return wake === undefined ? [] : [wake];
  });
  if (waits.length) ctx.getDelivery().nak(Math.max(Math.min(...waits), 10));
}
