import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import type { FlexEventContext } from '@flex/bus';
import { secretRefIds, type CapabilityRegistration, type PlanNode } from '@flex/contracts';
import { payloadOf, type StoredEvent } from '@flex/event-store';
import { decision, effectsOf } from '@flex/decider';
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
  fetchCapabilitySnapshot,
  RUNTIME,
  runCommand,
  type ServiceRuntime,
} from '@flex/runtime';
import { callAgent } from './agent.client';
import { buildInvocation } from './run/context-builder';
import { askedSecretFacets, revealSecretInputs } from './run/secret-inputs';
import { secretFreeOutcome } from './run/secret-free-outcome';
import { needsRegistry, wakeOf, type ExecutorDecision } from './run/executor.decision';
import { decideInvocation, type InvokeOutcome, type RetryPolicy } from './run/invoke.decide';
import { retryPolicy } from './run/retry.decide';
import { storableOutcome } from './run/storable-outcome';
import { decideNodeStart } from './run/node-start.decide';
import { decideOnEvent, decideReaction, decideTimers } from './run/run.decide';

const WORKING_EVERY_MS = 4_000;
const SNAPSHOT_TIMEOUT_MS = 3_000;

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
    const reaction = await this.react(event);
    const timers = await this.command(event, undefined, (s) =>
      decideTimers(s, this.runtime.clock.now(), this.limits),
    );
    hold(ctx, [reaction, timers.decision]);
  }

  @EventPattern('plan_updated')
  async onPlanUpdated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  /** A replan that found no valid plan: the run goes on with the one it has. */
  @EventPattern('plan_rejected')
  async onPlanRejected(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  @EventPattern('node_complete')
  async onNodeComplete(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  /** A retry that is not due yet comes back through a delayed redelivery of the node_error. */
  @EventPattern('node_error')
  async onNodeError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  @EventPattern('validation_error')
  async onValidationError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  /** An operator decided: run the follow-up action (resume, fail, nested hitl, replan…), then advance. */
  @EventPattern('hitl_resolved')
  async onHitlResolved(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  /** Resumed: the decisions made during the pause take effect, then the run advances. */
  @EventPattern('run_resumed')
  async onRunResumed(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    hold(ctx, [await this.react(event)]);
  }

  /**
   * node_start → the decider says what to do (ask an operator for a human capability's output, or
   * invoke the agent); the agent's answer is the next command, keyed by the node_start so that a
   * redelivery records it once (the agent dedupes on the idempotency key `runId:nodeId:attempt`).
   */
  @EventPattern('node_start')
  async onNodeStart(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const start = payloadOf(event, 'node_start');
    const registration = start.capabilityId ? await this.registration(start.capabilityId) : undefined;
    const agentType = registration?.agentType;
    const key = `executor:invoke:${event.id}`;
    const started = await this.command(event, key, (s) =>
      decideNodeStart(s, { start, agentType }, this.limits),
    );
    const { state } = started;
    for (const effect of effectsOf(started.decision, 'invoke')) {
      if (!isPlanned(state)) return;
      const node = state.plan.nodes.find((n) => n.id === effect.nodeId);
      if (!node) return;
      const heartbeat = setInterval(() => ctx.getDelivery().working(), WORKING_EVERY_MS);
      let outcome: InvokeOutcome;
      try {
        // Checked before the append: an answer Postgres refuses is an invalid output, not a poison message.
        outcome = storableOutcome(
          await this.invoke(state, node, { ...effect, registration: this.same(registration, effect) }),
        );
      } finally {
        clearInterval(heartbeat);
      }
      this.runtime.metrics.observe('flex.node.duration_ms', outcome.durationMs, {
        capabilityId: effect.capabilityId,
      });
      await this.command(event, key, (s) =>
        decision(decideInvocation(s, effect.nodeId, effect.attempt, outcome, this.retry)),
      );
    }
  }

  /**
   * One attempt: reveal the run's secrets for the facets that ask (the only place a secret's value
   * is handled), call the agent, and keep every secret out of what its answer makes us append.
   */
  private async invoke(state: StartedRun, node: PlanNode, call: InvokeCall): Promise<InvokeOutcome> {
    const { config, secrets } = this.runtime;
    const built = buildInvocation(state, node, call.attempt, config.FLEX_AGENT_TIMEOUT_MS);
    const ids = secretRefIds(state.envelope);
    if (ids.length === 0) return callAgent(this.runtime, { ...built, capabilityId: call.capabilityId }, node);
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
    return secretFreeOutcome(await callAgent(this.runtime, invocation, node), [...values.values()]);
  }

  /**
   * Decide the reaction to `event` and append it, keyed by the event: handled twice, it appends
   * once. A wait it leaves behind (a retry not due yet) comes back as a `wake` effect; the
   * redelivery finds the reaction appended and only moves the run forward (a decision that depends
   * on the run's state alone, so it needs no key: a second one finds nothing to do).
   */
  private async react(event: StoredEvent): Promise<ExecutorDecision> {
    const options = (fallbacks?: readonly CapabilityRegistration[]) => ({
      limits: this.limits,
      retry: this.retry,
      fallbacks,
    });
    const now = () => this.runtime.clock.now();
    const first = await this.decideWithRegistry(event, `executor:advance:${event.id}`, (s, f) =>
      decideReaction(s, event, now(), options(f)),
    );
    if (!first.duplicate) return first.decision;
    const again = await this.decideWithRegistry(event, undefined, (s, f) =>
      decideOnEvent(s, [], now(), options(f)),
    );
    return again.decision;
  }

  /**
   * Run a decider; when it asks for the registry's view (a node failed for good and may fall back
   * to another capability), fetch the snapshot and decide again with it.
   */
  private async decideWithRegistry(
    event: StoredEvent,
    key: string | undefined,
    decide: (s: RunState, fallbacks?: readonly CapabilityRegistration[]) => ExecutorDecision,
  ): Promise<{ decision: ExecutorDecision; duplicate: boolean }> {
    let result = await this.command(event, key, (s) => decide(s));
    if (!result.duplicate && needsRegistry(result.decision)) {
      const fallbacks = await this.activeRegistrations(event);
      result = await this.command(event, key, (s) => decide(s, fallbacks));
    }
    for (const e of result.appended) {
      if (e.type === 'complete') this.runtime.metrics.inc('flex.run.status', { status: 'completed' });
      if (e.type === 'run_failed') this.runtime.metrics.inc('flex.run.status', { status: 'failed' });
    }
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

  /** The registry's active registrations; none when it does not answer (said on the run's log too). */
  private async activeRegistrations(event: StoredEvent): Promise<CapabilityRegistration[]> {
    try {
      return activeRegistrations(
        await fetchCapabilitySnapshot(this.runtime.messaging, this.runtime.prefix, SNAPSHOT_TIMEOUT_MS),
      );
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
  private async logOnRun(event: StoredEvent, key: string, message: string): Promise<void> {
    const payload = { level: 'warn' as const, message, source: 'executor' };
    await this.command(event, `${key}:${event.id}`, (s) =>
      decision(s.status === 'none' || isTerminal(s) ? [] : [{ type: 'log', payload }]),
    ).catch((error: unknown) =>
      this.runtime.logger.warn('could not record a log line on the run', { error: String(error) }),
    );
  }

  /** Any registration of the capability, active or not: a human capability need not heartbeat. */
  private async registration(capabilityId: string): Promise<CapabilityRegistration | undefined> {
    try {
      const snapshot = await fetchCapabilitySnapshot(
        this.runtime.messaging,
        this.runtime.prefix,
        SNAPSHOT_TIMEOUT_MS,
      );
      return snapshot.capabilities.find((c) => c.registration.capabilityId === capabilityId)?.registration;
    } catch {
      return undefined;
    }
  }
}

interface InvokeCall {
  capabilityId: string;
  attempt: number;
  /** What the registry says serves `capabilityId` now (`undefined`: unknown). */
  registration?: CapabilityRegistration;
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
