import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { agentInvokeSubject, type FlexEventContext } from '@flex/bus';
import type { CapabilityRegistration, EventPayload, PlanNode } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { defaultFacetCompiler } from '@flex/facets';
import {
  evolveRun,
  initialRunState,
  isTerminal,
  nodeOutputErrors,
  runMetadata,
  type OutputIssue,
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
import { nodeOutputRequest, type AdvanceDecision } from './run/fallback.decide';
import { buildInvocation } from './run/context-builder';
import { decideInvocation, type InvokeOutcome, type RetryPolicy } from './run/invoke.decide';
import { storableOutcome } from './run/storable-outcome';
import { decideOnEvent, decideReaction, decideTimers } from './run/run.decide';

const WORKING_EVERY_MS = 4_000;
const SNAPSHOT_TIMEOUT_MS = 3_000;

/**
 * The executor's adapter: every handler loads the run from the store, calls a pure decider and
 * appends with the expected version; nothing lives in memory that the store cannot rebuild. Timers
 * (retry backoff, the run deadline) are deliveries held back with a delayed nak.
 */
@Controller()
export class ExecutorHandler {
  private readonly retry: RetryPolicy;
  private readonly limits: RunLimits;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.retry = {
      maxAttempts: runtime.config.FLEX_NODE_MAX_ATTEMPTS,
      backoffMs: (attempt) => Math.min(250 * 2 ** (attempt - 1), 10_000),
    };
    this.limits = {
      maxReplans: runtime.config.FLEX_MAX_REPLANS,
      maxHitlRequests: runtime.config.FLEX_MAX_HITL_REQUESTS,
    };
  }

  /** The first accepted plan: `onStart` policies, the first nodes, and the run's deadline timer. */
  @EventPattern('plan_generated')
  async onPlanGenerated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    await this.react(event, ctx);
    let wakeInMs: number | undefined;
    await this.command(event, undefined, (s) => {
      const decision = decideTimers(s, this.runtime.clock.now(), this.limits);
      wakeInMs = decision.wakeInMs;
      return decision.events;
    });
    if (wakeInMs !== undefined) ctx.getDelivery().nak(wakeInMs);
  }

  @EventPattern('plan_updated')
  onPlanUpdated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  /** A replan that found no valid plan: the run goes on with the one it has. */
  @EventPattern('plan_rejected')
  onPlanRejected(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  @EventPattern('node_complete')
  onNodeComplete(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  /** A retry that is not due yet comes back through a delayed redelivery of the node_error. */
  @EventPattern('node_error')
  onNodeError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  @EventPattern('validation_error')
  onValidationError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  /** An operator decided: run the follow-up action (resume, fail, nested hitl, replan…), then advance. */
  @EventPattern('hitl_resolved')
  onHitlResolved(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  /** Resumed: the decisions made during the pause take effect, then the run advances. */
  @EventPattern('run_resumed')
  onRunResumed(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.react(event, ctx);
  }

  /** node_start → a human capability raises a HITL request; any other is invoked over messaging (idempotency key runId:nodeId:attempt). */
  @EventPattern('node_start')
  async onNodeStart(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const start = event.payload as EventPayload<'node_start'>;
    const state = await this.load(event.streamId);
    if (state.status === 'none' || isTerminal(state) || !state.plan) return;
    const live = state.nodes[start.nodeId];
    if (!live || live.status !== 'running' || live.attempt !== start.attempt) return;
    const node = state.plan.nodes.find((n) => n.id === start.nodeId);
    const capabilityId = start.capabilityId ?? node?.capabilityId;
    if (!node || !capabilityId) return;
    if ((await this.registration(capabilityId))?.agentType === 'human') {
      await this.command(event, `executor:invoke:${event.id}`, (s) => {
        const current = s.status === 'none' ? undefined : s.nodes[node.id];
        if (
          s.status === 'none' ||
          isTerminal(s) ||
          current?.status !== 'running' ||
          current.attempt !== start.attempt
        )
          return [];
        return nodeOutputRequest(
          s,
          node,
          `${capabilityId} is a human capability: an operator supplies the output of ${node.id}`,
          { limits: this.limits },
          { capabilityId, inputs: buildInvocation(s, node, start.attempt, 0).inputs },
        );
      });
      return;
    }
    const heartbeat = setInterval(() => ctx.getDelivery().working(), WORKING_EVERY_MS);
    let outcome: InvokeOutcome;
    try {
      // Checked before the append: an answer Postgres refuses is an invalid output, not a poison message.
      outcome = storableOutcome(await this.invoke(state, node, capabilityId, start.attempt));
    } finally {
      clearInterval(heartbeat);
    }
    this.runtime.metrics.observe('flex.node.duration_ms', outcome.durationMs, { capabilityId });
    await this.command(event, `executor:invoke:${event.id}`, (s) =>
      decideInvocation(s, start.nodeId, start.attempt, outcome, this.retry),
    );
  }

  private async invoke(
    state: StartedRun,
    node: PlanNode,
    capabilityId: string,
    attempt: number,
  ): Promise<InvokeOutcome> {
    const { messaging, prefix, config } = this.runtime;
    const timeoutMs = config.FLEX_AGENT_TIMEOUT_MS;
    const invocation = { ...buildInvocation(state, node, attempt, timeoutMs), capabilityId };
    const started = Date.now();
    let reply: { output?: unknown; usage?: unknown };
    try {
      reply = await messaging.request<{ output?: unknown; usage?: unknown }>(
        agentInvokeSubject(prefix, capabilityId),
        invocation,
        { timeoutMs },
      );
    } catch (error) {
      const e = error as { code?: string; message?: string; retryable?: boolean; details?: unknown };
      const issues = facetIssuesOf(e.details);
      return {
        ok: false,
        durationMs: Date.now() - started,
        error: {
          code: e.code ?? 'agent_error',
          message: (e.message ?? String(error)).slice(0, 8000),
          retryable: e.retryable !== false,
        },
        // The SDK checks its own contracts: a refused input or output comes back with the facet issues.
        ...(issues && e.code === 'invalid_output' ? { outputErrors: issues } : {}),
        ...(issues && e.code === 'invalid_input' ? { inputErrors: issues } : {}),
      };
    }
    const durationMs = Date.now() - started;
    const output = reply?.output;
    if (!output || typeof output !== 'object' || Array.isArray(output)) {
      return {
        ok: false,
        durationMs,
        error: {
          code: 'invalid_output',
          message: 'the agent replied without an output object',
          retryable: true,
        },
        outputErrors: [{ path: '/', message: 'output must be an object' }],
      };
    }
    // Facet contract ∧ the caller-contract bindings; the constraints the node enforces are the decider's.
    const errors = nodeOutputErrors(node, output);
    if (errors.length) {
      return {
        ok: false,
        durationMs,
        error: {
          code: 'invalid_output',
          message: `output breaks the node contract: ${errors[0].path} ${errors[0].message}`.slice(0, 8000),
          retryable: true,
        },
        outputErrors: errors,
      };
    }
    const provenance = defaultFacetCompiler().compile(node.outputFacets, 'output').provenance;
    return {
      ok: true,
      output: output as Record<string, unknown>,
      durationMs,
      provenance,
      usage: usageOf(reply.usage),
    };
  }

  /**
   * Decide the reaction to `event` and append it, keyed by the event: handled twice, it appends
   * once. A wait it leaves behind (a retry not due yet) holds the delivery with a delayed nak; the
   * redelivery finds the reaction appended and only moves the run forward (a decision that depends
   * on the run's state alone, so it needs no key: a second one finds nothing to do).
   */
  private async react(event: StoredEvent, ctx?: FlexEventContext): Promise<void> {
    const options = (fallbacks?: readonly CapabilityRegistration[]) => ({
      limits: this.limits,
      retry: this.retry,
      fallbacks,
    });
    const now = () => this.runtime.clock.now();
    let outcome = await this.run(event, `executor:advance:${event.id}`, (s, f) =>
      decideReaction(s, event, now(), options(f)),
    );
    if (outcome.duplicate)
      outcome = await this.run(event, undefined, (s, f) => decideOnEvent(s, [], now(), options(f)));
    if (outcome.decision?.wakeInMs !== undefined)
      ctx?.getDelivery().nak(Math.max(outcome.decision.wakeInMs, 10));
  }

  /**
   * Run a decider; when it needs the registry's view (a node failed for good and may fall back to
   * another capability), fetch the snapshot and decide again. The snapshot's choice is recorded in
   * the `node_start` it leads to, so a replay never asks the registry.
   */
  private async run(
    event: StoredEvent,
    key: string | undefined,
    decide: (s: RunState, fallbacks?: readonly CapabilityRegistration[]) => AdvanceDecision,
  ): Promise<{ decision?: AdvanceDecision; duplicate: boolean }> {
    let last: AdvanceDecision | undefined;
    const attempt = (fallbacks?: readonly CapabilityRegistration[]) =>
      this.command(event, key, (s) => {
        last = decide(s, fallbacks);
        return last.events;
      });
    let result = await attempt();
    if (result.appended.length === 0 && !result.duplicate && last?.needsFallbacks)
      result = await attempt(await this.activeRegistrations());
    for (const e of result.appended) {
      if (e.type === 'complete') this.runtime.metrics.inc('flex.run.status', { status: 'completed' });
      if (e.type === 'run_failed') this.runtime.metrics.inc('flex.run.status', { status: 'failed' });
    }
    return { decision: last, duplicate: result.duplicate };
  }

  private command(
    event: StoredEvent,
    idempotencyKey: string | undefined,
    decide: (s: RunState) => readonly { type: string; payload: unknown }[],
  ) {
    return runCommand({
      store: this.runtime.store,
      streamId: event.streamId,
      initial: initialRunState,
      evolve: evolveRun,
      decide,
      metadata: (s) => runMetadata(s, event, 'executor'),
      idempotencyKey,
      clock: this.runtime.clock,
      ids: this.runtime.ids,
    });
  }

  private async activeRegistrations(): Promise<CapabilityRegistration[]> {
    try {
      return activeRegistrations(
        await fetchCapabilitySnapshot(this.runtime.messaging, this.runtime.prefix, SNAPSHOT_TIMEOUT_MS),
      );
    } catch (error) {
      this.runtime.logger.warn('registry snapshot unavailable; no fallback capability this time', {
        error: String(error),
      });
      return [];
    }
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

  private async load(streamId: string): Promise<RunState> {
    return (await this.runtime.store.readStream(streamId)).reduce(evolveRun, initialRunState());
  }
}

/** Usage as the agent reported it, kept only when it is well-formed (it feeds the `tokens` / `costCents` metrics). */
function usageOf(value: unknown): { tokens?: number; costCents?: number; model?: string } | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const u = value as Record<string, unknown>;
  const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);
  const usage = {
    tokens: n(u.tokens),
    costCents: n(u.costCents),
    model: typeof u.model === 'string' && u.model.length >= 1 && u.model.length <= 200 ? u.model : undefined,
  };
  const kept = Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? kept : undefined;
}

/** Facet issues an agent SDK error carries in `details.errors` (`{facet, pointer, keyword, message}`). */
function facetIssuesOf(details: unknown): OutputIssue[] | undefined {
  const errors = (details as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  return errors.slice(0, 50).map((raw) => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const str = (x: unknown, max: number) => (typeof x === 'string' ? x.slice(0, max) : undefined);
    return JSON.parse(
      JSON.stringify({
        path: str(e.pointer, 1000) ?? str(e.path, 1000) ?? '/',
        keyword: str(e.keyword, 200),
        message: str(e.message, 2000) || 'invalid',
        facet: str(e.facet, 200),
      }),
    );
  });
}
