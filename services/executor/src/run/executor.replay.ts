import type { CapabilityRegistration } from '@flex/contracts';
import { payloadOf, type StoredEvent } from '@flex/event-store';
import { takenFromRecord, type Redecision, type ReplayAdapter, type ReplayStep } from '@flex/replay';
import { evolveRun, initialRunState, type RunLimits, type RunState } from '@flex/run-model';
import type { AgentLog } from './agent-reply';
import { needsRegistry, type ExecutorDecision } from './executor.decision';
import { decideInvocation, type InvokeOutcome, type RetryPolicy } from './invoke.decide';
import { decideNodeStart } from './node-start.decide';
import { decideOnEvent, decideReaction, decideTimers, type PolicyEvaluator } from './run.decide';
import {
  redecideUnreachableFailure,
  redecideUnreachableWait,
  redecideWithdrawal,
  unreachableWaitOf,
} from './transient.replay';

/** What the executor decides with that is configuration, not record (FLEX_* settings). */
export interface ExecutorReplaySettings {
  limits: RunLimits;
  retry: RetryPolicy;
  /** The policy engine's evaluation; another in its place shows what a policy change would alter. */
  evaluate?: PolicyEvaluator;
}

/** Events of an attempt's answer: what the agent said (its output or error, and its log lines). */
const ANSWER_TYPES: ReadonlySet<string> = new Set(['node_complete', 'node_error', 'validation_error', 'log']);

/**
 * The executor's decisions, taken again (see docs/AUDIT.md, "Verified replay"). On a `node_start`:
 * the answer of the agent (taken from the record: output, error, logs, duration) decided by
 * `decideInvocation`, or a human capability's HITL request (`decideNodeStart`). On any other event:
 * the reaction (`decideReaction`: policies, HITL follow-ups, moving the run on), the redelivery's
 * `decideOnEvent` and, on the first plan, the deadline timer (`decideTimers`). A node that falls
 * back to another capability is decided over the registry the run's latest plan was drafted over.
 * An unreachable agent's wait, its give-up and a stand-in request's withdrawal are decided again
 * on the clock and registry view their events record (transient.replay.ts).
 */
export function executorReplayAdapter(settings: ExecutorReplaySettings): ReplayAdapter {
  return {
    producer: 'executor',
    component: (type) => (type === 'policy_triggered' ? 'executor (policy engine)' : 'executor'),
    redecide: (step) => redecide(step, settings),
  };
}

function redecide(step: ReplayStep, settings: ExecutorReplaySettings): Redecision[] {
  const { trigger, now } = step;
  if (!trigger)
    throw new Error(`the event that caused version ${step.recorded[0].version} is not in the stream`);
  const state = step.history.reduce(evolveRun, initialRunState());
  if (trigger.type === 'node_start' && unreachableWaitOf(step.recorded[0]))
    return [
      redecideUnreachableWait(state, payloadOf(trigger, 'node_start'), step.recorded[0], settings.retry),
    ];
  if (isRegistryUnavailableLine(step.recorded[0])) return [takenFromRecord(step.recorded.slice(0, 1))];
  if (trigger.type === 'node_start') return onNodeStart(state, trigger, step.recorded, settings);
  const withdrawal = redecideWithdrawal(state, trigger, step.recorded);
  if (withdrawal) return [withdrawal];
  const options = { limits: settings.limits, retry: settings.retry, evaluate: settings.evaluate };
  // The registry did not answer this trigger (its line is in the record): the handler decided with none.
  const unanswered = step.history.some(
    (e) => e.metadata.causationId === trigger.id && isRegistryUnavailableLine(e),
  );
  const fallbacks = unanswered ? [] : registryOf(step.history);
  // As the handler: what a decision needing the registry decided before that is appended first (its
  // own append); the registry's view is asked for once nothing else is left to decide.
  const withRegistry = (decide: (f?: readonly CapabilityRegistration[]) => ExecutorDecision) => {
    const first = decide();
    return needsRegistry(first) && first.events.length === 0 ? decide(fallbacks) : first;
  };
  const candidates: Redecision[] = [
    {
      via: 'decideReaction',
      ...withRegistry((f) => decideReaction(state, trigger, now, { ...options, fallbacks: f })),
    },
    {
      via: 'decideOnEvent',
      ...withRegistry((f) => decideOnEvent(state, [], now, { ...options, fallbacks: f })),
    },
  ];
  if (trigger.type === 'plan_generated')
    candidates.push({ via: 'decideTimers', ...decideTimers(state, now, settings.limits, settings.evaluate) });
  return candidates;
}

function onNodeStart(
  state: RunState,
  trigger: StoredEvent,
  recorded: readonly StoredEvent[],
  settings: ExecutorReplaySettings,
): Redecision[] {
  const start = payloadOf(trigger, 'node_start');
  const human = decideNodeStart(state, { start, agentType: 'human' }, settings.limits);
  const candidates: Redecision[] = [{ via: 'decideNodeStart', events: human.events }];
  const unreachable = redecideUnreachableFailure(state, start, recorded, settings.retry);
  if (unreachable) return [unreachable, ...candidates];
  const outcome = answerOf(recorded);
  if (outcome)
    candidates.unshift({
      via: 'decideInvocation',
      events: decideInvocation(state, start.nodeId, start.attempt, outcome, settings.retry),
    });
  return candidates;
}

/**
 * The agent's answer, as the record has it: its output (node_complete) or its error and the
 * issues it or the node's contract found (node_error, validation_error), and its log lines.
 */
export function answerOf(recorded: readonly StoredEvent[]): InvokeOutcome | undefined {
  const answer = recorded.filter((e) => ANSWER_TYPES.has(e.type));
  const logs = answer.filter((e) => e.type === 'log' && field(e, 'source') === 'agent').flatMap(agentLog);
  const done = answer.find((e) => e.type === 'node_complete');
  const logged = logs.length ? { logs } : {};
  if (done) {
    const p = done.payload as Record<string, unknown>;
    return {
      ok: true,
      output: p.output as Record<string, unknown>,
      durationMs: p.durationMs as number,
      ...(p.facetProvenance ? { provenance: p.facetProvenance as [] } : {}),
      ...(p.usage ? { usage: p.usage as object } : {}),
      ...logged,
    };
  }
  const failed = answer.find((e) => e.type === 'node_error');
  if (!failed) return undefined;
  const issues = (scope: string) =>
    answer.find((e) => e.type === 'validation_error' && field(e, 'scope') === scope)?.payload as
      { errors: [] } | undefined;
  return {
    ok: false,
    durationMs: 0,
    error: (failed.payload as { error: { code: string; message: string; retryable: boolean } }).error,
    ...(issues('capability_input') ? { inputErrors: issues('capability_input')?.errors } : {}),
    ...(issues('capability_output') ? { outputErrors: issues('capability_output')?.errors } : {}),
    ...logged,
  };
}

/** The registrations the run's latest plan was drafted over (recorded on `plan_drafted`). */
function registryOf(history: readonly StoredEvent[]): CapabilityRegistration[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const registrations = field(history[i], 'registrations');
    if (history[i].type === 'plan_drafted' && Array.isArray(registrations))
      return registrations as CapabilityRegistration[];
  }
  return [];
}

/** An agent's line as it answered it (agents record `info` and above: a `debug` line is none of theirs). */
function agentLog(event: StoredEvent): AgentLog[] {
  const { level, message, data } = payloadOf(event, 'log');
  if (level === 'debug') return [];
  return [{ level, message, ...(data ? { data: data as Record<string, unknown> } : {}) }];
}

/** The executor's own line when the registry did not answer: an outside fact, taken as recorded. */
function isRegistryUnavailableLine(event: StoredEvent): boolean {
  return event.type === 'log' && field(event, 'source') === 'executor' && !unreachableWaitOf(event);
}

function field(event: StoredEvent, name: string): unknown {
  const payload = event.payload;
  return payload && typeof payload === 'object' ? (payload as Record<string, unknown>)[name] : undefined;
}
