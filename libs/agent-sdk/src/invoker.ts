import { ATTR, inRemoteSpan, SpanKind, type Span } from '@flex/tracing';
import type { AgentContext, AgentDefinition, AgentInvocation, AgentResult, AgentUsage } from './agent.types';
import { AgentError, AgentFailedError, AgentStoppingError } from './errors';
import type { FacetGuard } from './facet-guard';
import { IdempotencyCache } from './idempotency-cache';
import { parseInvocation, resolveDeadline } from './invocation.schema';
import type { AgentLogger } from './logger';
import { RunLogCollector, type AgentLogLine } from './run-log';

export interface InvokerOptions {
  agent: AgentDefinition;
  guard: FacetGuard;
  instanceId: string;
  cacheSize: number;
  logger: AgentLogger;
}

/**
 * Turns one request on the invoke subject into a reply: parse, replay by idempotency key, check
 * inputs, run the handler, check the output. Tracks what is in flight so a stop can drain it.
 */
export class Invoker {
  private readonly cache: IdempotencyCache<AgentResult>;
  private readonly inFlight = new Set<Promise<unknown>>();
  private accepting = true;

  constructor(private readonly o: InvokerOptions) {
    this.cache = new IdempotencyCache(o.cacheSize);
  }

  /**
   * `traceparent` is the caller's span (the executor's node attempt, from the request's headers):
   * the invocation is traced as its child, so the agent's work joins the run's trace.
   */
  readonly handle = (data: unknown, traceparent?: string): Promise<AgentResult> => {
    if (!this.accepting) return Promise.reject(new AgentStoppingError());
    const receivedAt = Date.now();
    const attributes = {
      [ATTR.capabilityId]: this.o.agent.registration.capabilityId,
      'service.instance.id': this.o.instanceId,
    };
    const work = inRemoteSpan(traceparent, 'agent.invoke', { kind: SpanKind.SERVER, attributes }, (span) =>
      this.process(data, receivedAt, span),
    );
    this.inFlight.add(work);
    const forget = () => this.inFlight.delete(work);
    work.then(forget, forget);
    return work;
  };

  /** Refuse new invocations, then wait for the ones in flight. */
  async drain(): Promise<void> {
    this.accepting = false;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async process(data: unknown, receivedAt: number, span?: Span): Promise<AgentResult> {
    let log: Record<string, unknown> = {};
    try {
      const invocation = parseInvocation(data, this.o.agent.registration.capabilityId);
      span?.setAttributes({
        [ATTR.runId]: invocation.runId,
        [ATTR.nodeId]: invocation.nodeId,
        [ATTR.nodeAttempt]: invocation.attempt,
      });
      log = {
        runId: invocation.runId,
        nodeId: invocation.nodeId,
        attempt: invocation.attempt,
        idempotencyKey: invocation.idempotencyKey,
      };
      const { value, replayed } = await this.cache.run(invocation.idempotencyKey, () =>
        this.execute(invocation, receivedAt),
      );
      this.o.logger.info(replayed ? 'agent_invocation_replayed' : 'agent_invocation_completed', {
        ...log,
        ms: Date.now() - receivedAt,
      });
      return value;
    } catch (error) {
      const { code, retryable, message } = error as AgentError;
      this.o.logger.warn('agent_invocation_failed', { ...log, code, retryable, reason: message });
      throw error;
    }
  }

  private async execute(invocation: AgentInvocation, receivedAt: number): Promise<AgentResult> {
    this.o.guard.checkInputs(invocation.inputs);
    const facets = this.o.guard.resolveOutputFacets(invocation.outputFacets);
    const deadline = resolveDeadline(invocation.deadlineMs, receivedAt);
    const abort = new AbortController();
    const timer =
      deadline === undefined
        ? undefined
        : setTimeout(() => abort.abort(new Error('deadline passed')), Math.max(0, deadline - Date.now()));
    timer?.unref();
    let usage: AgentUsage | undefined;
    const log = new RunLogCollector(this.o.logger);
    const ctx: AgentContext = {
      capabilityId: this.o.agent.registration.capabilityId,
      instanceId: this.o.instanceId,
      idempotencyKey: invocation.idempotencyKey,
      deadline,
      signal: abort.signal,
      logger: log.logger,
      reportUsage: (reported) => {
        usage = { ...reported };
      },
    };
    try {
      const output = await this.callHandler({ ...invocation, outputFacets: facets }, ctx);
      const checked = this.o.guard.checkOutput(output, facets);
      const logs = log.lines();
      return { output: checked, ...(usage ? { usage } : {}), ...(logs.length ? { logs } : {}) };
    } catch (error) {
      throw withLogs(error, log.lines());
    } finally {
      clearTimeout(timer);
    }
  }

  private async callHandler(invocation: AgentInvocation, ctx: AgentContext): Promise<unknown> {
    try {
      return await this.o.agent.handle(invocation, ctx);
    } catch (error) {
      throw hasErrorCode(error) ? error : new AgentFailedError(error);
    }
  }
}

/** A failure carries what the handler logged before it in `details.logs` (objects merge; others are kept as `value`). */
function withLogs(error: unknown, logs: AgentLogLine[]): unknown {
  if (logs.length === 0 || !(error instanceof AgentError)) return error;
  const details = error.details;
  const merged =
    details !== null && typeof details === 'object' && !Array.isArray(details)
      ? { ...(details as Record<string, unknown>), logs }
      : details === undefined
        ? { logs }
        : { value: details, logs };
  const copy = new AgentError(error.code, error.message, {
    retryable: error.retryable,
    details: merged,
    cause: error,
  });
  copy.name = error.name;
  return copy;
}

/** A handler's coded error (AgentError or any error saying whether a retry helps) goes out as it is. */
function hasErrorCode(error: unknown): error is AgentError {
  const e = error as { code?: unknown; retryable?: unknown } | null;
  return typeof e?.code === 'string' && typeof e.retryable === 'boolean';
}
