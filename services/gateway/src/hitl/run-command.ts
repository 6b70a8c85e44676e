import { zodIssuesToValidationIssues } from '@flex/contracts';
import {
  evolveRun,
  initialRunState,
  refusalOf,
  type ControlDecision,
  type RefusalCode,
  type RunLimits,
  type RunState,
} from '@flex/run-model';
import { runCommand, type ServiceRuntime } from '@flex/runtime';
import type { StoredEvent } from '@flex/event-store';
import { ATTR, contextOf, recordSpan } from '@flex/tracing';
import type { z } from 'zod';
import { apiError } from '../http/api-error';

/** Parse a request body once; a bad body is a 400 naming the path, and changes nothing. */
export function parseBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  code = 'invalid_request',
): z.output<S> {
  const parsed = schema.safeParse(body ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issues = zodIssuesToValidationIssues(parsed.error.issues);
  const first = issues[0];
  throw apiError(400, code, `${first?.path ? `${first.path}: ` : ''}${first?.message ?? 'invalid body'}`, {
    issues: issues.slice(0, 50),
  });
}

/**
 * An operator command on a run: load the stream, decide (pure), append with the stream's expected
 * version (a concurrent writer makes us reload and decide again, so of two racing commands exactly
 * one wins), and map a refusal to its API error after appending what the refusal records.
 */
export async function runControlCommand(
  runtime: ServiceRuntime,
  command: ControlCommand,
  decide: (state: RunState) => ControlDecision,
): Promise<StoredEvent[]> {
  return (await controlCommand(runtime, command, decide)).appended;
}

/** Which run an operator command is on, who gives it, and its span's name (`run.pause`, `hitl.resolve`…). */
export interface ControlCommand {
  streamId: string;
  actor: string;
  span: string;
}

/**
 * {@link runControlCommand}, with the run's state once the events are appended. What it appends
 * carries the run's trace context, so the work it sets off joins the run's trace; its own span is
 * recorded in that trace once the run's state (and so its context) is known.
 */
export async function controlCommand(
  runtime: ServiceRuntime,
  { streamId, actor, span }: ControlCommand,
  decide: (state: RunState) => ControlDecision,
): Promise<{ appended: StoredEvent[]; state: RunState }> {
  const startTime = runtime.clock.now();
  const result = await runCommand({
    store: runtime.store,
    streamId,
    fold: { initialState: initialRunState, evolve: evolveRun },
    decide,
    metadata: (s) => ({
      correlationId: s.status === 'none' ? runtime.ids.uuid() : s.correlationId,
      actor,
      producer: 'gateway',
      planVersion: s.status === 'none' ? undefined : s.planVersion || undefined,
      traceparent: s.status === 'none' ? undefined : s.traceparent,
    }),
    clock: runtime.clock,
    ids: runtime.ids,
    cache: runtime.streamStates,
  });
  // A refusal is the decision's effect: what it records is appended, then the API answers with it.
  const refusal = refusalOf(result.decision);
  if (result.state.status !== 'none')
    recordSpan(span, {
      parent: contextOf(result.state.traceparent),
      startTime,
      attributes: { [ATTR.runId]: result.state.runId },
      error: refusal?.code,
    });
  if (refusal) throw apiError(REFUSAL_STATUS[refusal.code], refusal.code, refusal.message);
  return { appended: result.appended, state: result.state };
}

/** The HTTP status of each refusal an operator command can meet. */
const REFUSAL_STATUS: Record<RefusalCode, 400 | 404 | 409> = {
  run_not_found: 404,
  hitl_request_not_found: 404,
  policy_not_found: 404,
  invalid_hitl_payload: 400,
  run_already_ended: 409,
  invalid_run_state: 409,
  stale_plan_version: 409,
  hitl_already_resolved: 409,
  policy_not_manual: 409,
};

/** The run limits operator commands decide with (the executor's, from the same settings). */
export function runLimits(runtime: ServiceRuntime): RunLimits {
  return {
    maxReplans: runtime.config.FLEX_MAX_REPLANS,
    maxHitlRequests: runtime.config.FLEX_MAX_HITL_REQUESTS,
  };
}
