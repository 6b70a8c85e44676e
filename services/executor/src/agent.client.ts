import type { AgentInvocation } from '@flex/agent-sdk';
import { trace } from '@opentelemetry/api';
import { agentInvokeSubject, isUnreachable } from '@flex/bus';
import type { PlanNode } from '@flex/contracts';
import { traceHeaders } from '@flex/tracing';
import { defaultFacetCompiler } from '@flex/facets';
import { nodeOutputErrors } from '@flex/run-model';
import { DISPATCH_LOG_NAMES, type ServiceRuntime } from '@flex/runtime';
import { agentLogsOf, facetIssuesOf, usageOf } from './run/agent-reply';
import type { InvokeOutcome } from './run/invoke.decide';

type Reply = { output?: unknown; usage?: unknown; logs?: unknown };

/**
 * Ask the agent serving `invocation.capabilityId` (request/reply, queue group per capability) and
 * check its answer against the node's contract: what comes back is an outcome, never a throw. Logs
 * `flex_capability_dispatch_start`, then `…_complete` or `…_error` (its code, never its message:
 * an agent's words may echo its inputs).
 * An agent nobody could reach (no responders; NATS down while asking) is an `unreachable` outcome.
 */
export async function callAgent(
  runtime: Pick<ServiceRuntime, 'messaging' | 'prefix' | 'config' | 'logger'>,
  invocation: AgentInvocation,
  node: PlanNode,
  traceparent?: string,
): Promise<InvokeOutcome> {
  // Trace ids: the active span's when there is one, else those of the node_start it answers.
  const about = {
    runId: invocation.runId,
    nodeId: invocation.nodeId,
    capabilityId: invocation.capabilityId,
    attempt: invocation.attempt,
    ...(traceparent && !trace.getActiveSpan() ? { traceparent } : {}),
  };
  runtime.logger.info('dispatch start', { event: DISPATCH_LOG_NAMES.start, ...about });
  const outcome = await askAgent(runtime, invocation, node);
  const result = { ...about, durationMs: outcome.durationMs };
  if (outcome.ok) runtime.logger.info('dispatch complete', { event: DISPATCH_LOG_NAMES.complete, ...result });
  else
    runtime.logger.warn('dispatch error', {
      event: DISPATCH_LOG_NAMES.error,
      ...result,
      code: outcome.error.code,
      retryable: outcome.error.retryable,
    });
  return outcome;
}

async function askAgent(
  runtime: Pick<ServiceRuntime, 'messaging' | 'prefix' | 'config'>,
  invocation: AgentInvocation,
  node: PlanNode,
): Promise<InvokeOutcome> {
  const timeoutMs = runtime.config.FLEX_AGENT_TIMEOUT_MS;
  const started = Date.now();
  let reply: Reply;
  try {
    reply = await runtime.messaging.request<Reply>(
      agentInvokeSubject(runtime.prefix, invocation.capabilityId),
      invocation,
      // The agent's span joins the run's trace as a child of this attempt's.
      { timeoutMs, headers: traceHeaders() },
    );
  } catch (error) {
    return failedCall(error, Date.now() - started);
  }
  return checkedReply(reply, node, Date.now() - started);
}

function failedCall(error: unknown, durationMs: number): InvokeOutcome {
  const e = error as { code?: string; message?: string; retryable?: boolean; details?: unknown };
  const issues = facetIssuesOf(e.details);
  const logs = agentLogsOf((e.details as { logs?: unknown } | undefined)?.logs);
  return {
    ok: false,
    durationMs,
    ...(logs ? { logs } : {}),
    error: {
      code: e.code ?? 'agent_error',
      message: (e.message ?? String(error)).slice(0, 8000),
      retryable: e.retryable !== false,
    },
    ...(isUnreachable(error) ? { unreachable: true as const } : {}),
    // The SDK checks its own contracts: a refused input or output comes back with the facet issues.
    ...(issues && e.code === 'invalid_output' ? { outputErrors: issues } : {}),
    ...(issues && e.code === 'invalid_input' ? { inputErrors: issues } : {}),
  };
}

function checkedReply(reply: Reply | undefined, node: PlanNode, durationMs: number): InvokeOutcome {
  const output = reply?.output;
  const logs = agentLogsOf(reply?.logs);
  const logged = logs ? { logs } : {};
  if (!isRecord(output)) {
    return {
      ok: false,
      durationMs,
      ...logged,
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
      ...logged,
      error: {
        code: 'invalid_output',
        message: `output breaks the node contract: ${errors[0].path} ${errors[0].message}`.slice(0, 8000),
        retryable: true,
      },
      outputErrors: errors,
    };
  }
  const provenance = defaultFacetCompiler().compile(node.outputFacets, 'output').provenance;
  return { ok: true, output, durationMs, provenance, usage: usageOf(reply?.usage), ...logged };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
