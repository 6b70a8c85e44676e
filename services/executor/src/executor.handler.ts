import { Controller, Inject } from '@nestjs/common';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { agentInvokeSubject, type FlexEventContext } from '@flex/bus';
import type { EventPayload, PlanNode } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { FacetContractCompiler } from '@flex/facets';
import { evolveRun, initialRunState, runMetadata, type StartedRun } from '@flex/run-model';
import { RUNTIME, runCommand, type ServiceRuntime } from '@flex/runtime';
import { decideAdvance } from './run/advance.decide';
import { buildInvocation } from './run/context-builder';
import { decideInvocation, type InvokeOutcome, type RetryPolicy } from './run/invoke.decide';

const compiler = new FacetContractCompiler();
const WORKING_EVERY_MS = 10_000;

@Controller()
export class ExecutorHandler {
  private readonly retry: RetryPolicy;

  constructor(@Inject(RUNTIME) private readonly runtime: ServiceRuntime) {
    this.retry = { maxAttempts: runtime.config.FLEX_NODE_MAX_ATTEMPTS, backoffMs: (attempt) => Math.min(250 * 2 ** (attempt - 1), 10_000) };
  }

  @EventPattern('plan_generated')
  onPlanGenerated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.advance(event, ctx);
  }

  @EventPattern('plan_updated')
  onPlanUpdated(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.advance(event, ctx);
  }

  @EventPattern('node_complete')
  onNodeComplete(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.advance(event, ctx);
  }

  @EventPattern('node_error')
  onNodeError(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext) {
    return this.advance(event, ctx);
  }

  /** node_start of an agent node → invoke the agent (idempotency key runId:nodeId:attempt) → record the outcome. */
  @EventPattern('node_start')
  async onNodeStart(@Payload() event: StoredEvent, @Ctx() ctx: FlexEventContext): Promise<void> {
    const start = event.payload as EventPayload<'node_start'>;
    const state = await this.load(event.streamId);
    if (state.status !== 'running' || !state.plan) return;
    const live = state.nodes[start.nodeId];
    if (!live || live.status !== 'running' || live.attempt !== start.attempt) return;
    const node = state.plan.nodes.find((n) => n.id === start.nodeId);
    if (!node?.capabilityId) return;
    const heartbeat = setInterval(() => ctx.getDelivery().working(), WORKING_EVERY_MS);
    let outcome: InvokeOutcome;
    try {
      outcome = await this.invoke(state, node, start.attempt);
    } finally {
      clearInterval(heartbeat);
    }
    this.runtime.metrics.observe('flex.node.duration_ms', outcome.durationMs, { capabilityId: node.capabilityId });
    await runCommand({
      store: this.runtime.store,
      streamId: event.streamId,
      initial: initialRunState,
      evolve: evolveRun,
      decide: (s) => decideInvocation(s, start.nodeId, start.attempt, outcome, this.retry),
      metadata: (s) => runMetadata(s, event, 'executor'),
      idempotencyKey: `executor:invoke:${event.id}`,
      clock: this.runtime.clock,
      ids: this.runtime.ids,
    });
  }

  private async invoke(state: StartedRun, node: PlanNode, attempt: number): Promise<InvokeOutcome> {
    const { messaging, prefix, config } = this.runtime;
    const timeoutMs = config.FLEX_AGENT_TIMEOUT_MS;
    const invocation = buildInvocation(state, node, attempt, timeoutMs);
    const started = Date.now();
    let reply: { output?: unknown };
    try {
      reply = await messaging.request<{ output?: unknown }>(agentInvokeSubject(prefix, node.capabilityId as string), invocation, { timeoutMs });
    } catch (error) {
      const e = error as { code?: string; message?: string; retryable?: boolean };
      return { ok: false, durationMs: Date.now() - started, error: { code: e.code ?? 'agent_error', message: e.message ?? String(error), retryable: e.retryable !== false } };
    }
    const durationMs = Date.now() - started;
    const output = reply?.output;
    if (!output || typeof output !== 'object' || Array.isArray(output)) {
      return { ok: false, durationMs, error: { code: 'invalid_output', message: 'the agent replied without an output object', retryable: true }, outputErrors: [{ path: '/', message: 'output must be an object' }] };
    }
    const compiled = compiler.compile(node.outputFacets, 'output');
    const errors = compiled.validate(output);
    if (errors.length) {
      return {
        ok: false,
        durationMs,
        error: { code: 'invalid_output', message: `output breaks the node contract: ${errors[0].pointer} ${errors[0].message}`, retryable: true },
        outputErrors: errors.map((e) => ({ path: e.pointer, keyword: e.keyword, message: e.message, facet: e.facet })),
      };
    }
    return { ok: true, output: output as Record<string, unknown>, durationMs, provenance: compiled.provenance };
  }

  /** Move the run forward; a retry that is not due yet comes back through a delayed redelivery. */
  private async advance(event: StoredEvent, ctx: FlexEventContext): Promise<void> {
    let wakeInMs: number | undefined;
    await runCommand({
      store: this.runtime.store,
      streamId: event.streamId,
      initial: initialRunState,
      evolve: evolveRun,
      decide: (s) => {
        const decision = decideAdvance(s, this.runtime.clock.now());
        wakeInMs = decision.wakeInMs;
        return decision.events;
      },
      metadata: (s) => runMetadata(s, event, 'executor'),
      idempotencyKey: `executor:advance:${event.id}`,
      clock: this.runtime.clock,
      ids: this.runtime.ids,
    }).then((result) => {
      for (const e of result.appended) {
        if (e.type === 'complete') this.runtime.metrics.inc('flex.run.status', { status: 'completed' });
        if (e.type === 'run_failed') this.runtime.metrics.inc('flex.run.status', { status: 'failed' });
      }
    });
    if (wakeInMs !== undefined && event.type === 'node_error') ctx.getDelivery().nak(Math.max(wakeInMs, 10));
  }

  private async load(streamId: string) {
    return (await this.runtime.store.readStream(streamId)).reduce(evolveRun, initialRunState());
  }
}
