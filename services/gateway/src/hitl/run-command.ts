import { decision } from '@flex/decider';
import { zodIssuesToValidationIssues } from '@flex/contracts';
import { evolveRun, initialRunState, type ControlOutcome, type RunState } from '@flex/run-model';
import { runCommand, type ServiceRuntime } from '@flex/runtime';
import type { StoredEvent } from '@flex/event-store';
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
  streamId: string,
  actor: string,
  decide: (state: RunState) => ControlOutcome,
): Promise<StoredEvent[]> {
  return (await controlCommand(runtime, streamId, actor, decide)).appended;
}

/** {@link runControlCommand}, with the run's state once the events are appended. */
export async function controlCommand(
  runtime: ServiceRuntime,
  streamId: string,
  actor: string,
  decide: (state: RunState) => ControlOutcome,
): Promise<{ appended: StoredEvent[]; state: RunState }> {
  const result = await runCommand({
    store: runtime.store,
    streamId,
    fold: { initialState: initialRunState, evolve: evolveRun },
    // A refusal is the decision's effect: what it records is appended, then the API answers with it.
    decide: (s) => {
      const outcome = decide(s);
      return outcome.ok ? decision(outcome.events) : decision(outcome.events ?? [], [outcome]);
    },
    metadata: (s) => ({
      correlationId: s.status === 'none' ? runtime.ids.uuid() : s.correlationId,
      actor,
      producer: 'gateway',
      planVersion: s.status === 'none' ? undefined : s.planVersion || undefined,
    }),
    clock: runtime.clock,
    ids: runtime.ids,
  });
  for (const refusal of result.decision.effects)
    throw apiError(refusal.status, refusal.code, refusal.message);
  return { appended: result.appended, state: result.state };
}
