import { findUnstorableText, toJsonPointer, toStorableText } from '@flex/contracts';
import type { OutputIssue } from '@flex/run-model';
import type { AgentLog } from './agent-reply';
import type { InvokeOutcome } from './invoke.decide';

type Failed = Extract<InvokeOutcome, { ok: false }>;
type Succeeded = Extract<InvokeOutcome, { ok: true }>;

/**
 * What an agent answered, made safe to record (pure). Postgres refuses a NUL or an unpaired
 * surrogate in `jsonb`; appended as it came, such an answer would fail every delivery until the
 * message dead-letters. An output holding one is an invalid output (a `validation_error` naming
 * the path, then retry, fallback or HITL like any other); error text the agent sent is recorded
 * with U+FFFD in place of what cannot be stored.
 */
export function storableOutcome(outcome: InvokeOutcome): InvokeOutcome {
  const logs = outcome.logs?.map(storableLog);
  const checked = outcome.ok ? checkOutput(outcome) : cleanFailure(outcome);
  return logs ? { ...checked, logs } : checked;
}

/** A log line's message with U+FFFD for what cannot be stored; data that holds such text is left out. */
function storableLog(line: AgentLog): AgentLog {
  const message = toStorableText(line.message);
  if (line.data === undefined || findUnstorableText(line.data) === undefined) return { ...line, message };
  return { level: line.level, message };
}

function checkOutput(outcome: Succeeded): InvokeOutcome {
  const found = findUnstorableText(outcome.output);
  if (!found) return withStorableUsage(outcome);
  const path = toJsonPointer(found.path);
  return {
    ok: false,
    durationMs: outcome.durationMs,
    error: { code: 'invalid_output', message: `output ${path} ${found.message}`, retryable: true },
    outputErrors: [{ path, keyword: 'storable', message: found.message }],
  };
}

/** `usage.model` is the agent's free text: kept only when it can be stored. */
function withStorableUsage(outcome: Succeeded): Succeeded {
  const model = outcome.usage?.model;
  if (model === undefined || findUnstorableText(model) === undefined) return outcome;
  const { model: _dropped, ...usage } = outcome.usage ?? {};
  return { ...outcome, usage };
}

function cleanFailure(outcome: Failed): Failed {
  const clean = (issues?: OutputIssue[]) => issues?.map(cleanIssue);
  return {
    ...outcome,
    error: {
      ...outcome.error,
      code: toStorableText(outcome.error.code),
      message: toStorableText(outcome.error.message),
    },
    ...(outcome.outputErrors ? { outputErrors: clean(outcome.outputErrors) } : {}),
    ...(outcome.inputErrors ? { inputErrors: clean(outcome.inputErrors) } : {}),
  };
}

function cleanIssue({ path, keyword, message, facet }: OutputIssue): OutputIssue {
  const cleaned: OutputIssue = { path: toStorableText(path), message: toStorableText(message) };
  if (keyword !== undefined) cleaned.keyword = toStorableText(keyword);
  if (facet !== undefined) cleaned.facet = toStorableText(facet);
  return cleaned;
}
