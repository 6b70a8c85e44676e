import { toJsonPointer } from '@flex/contracts';
import type { OutputIssue } from '@flex/run-model';
import type { AgentLog } from './agent-reply';
import type { InvokeOutcome } from './invoke.decide';

/** Shorter secret text is not looked for: too likely to occur in honest prose. */
export const MIN_SECRET_MATCH = 6;
const REDACTED = '[secret]';

type Failed = Extract<InvokeOutcome, { ok: false }>;

/**
 * What an agent answered, with the run's secrets kept out of what is appended (pure). An output
 * holding a secret's text verbatim (in a value or a key) is an invalid output — a `validation_error`
 * naming the path, keyword `secret`, then retry, fallback or HITL like any other — so no node output,
 * final output, stream or read model carries it. In the text of a failure (error messages, issue
 * messages) and in `usage.model` the secret is replaced by `[secret]`.
 */
export function secretFreeOutcome(outcome: InvokeOutcome, secretValues: readonly unknown[]): InvokeOutcome {
  const needles = secretTexts(secretValues);
  if (needles.length === 0) return outcome;
  if (outcome.logs) outcome = { ...outcome, logs: redactLogs(outcome.logs, needles) };
  if (!outcome.ok) return redactFailure(outcome, needles);
  const path = findSecretText(outcome.output, needles);
  if (path) {
    const pointer = toJsonPointer(path);
    const message = 'repeats a secret of the run: a secret may reach an agent, never an output';
    return {
      ok: false,
      durationMs: outcome.durationMs,
      error: { code: 'invalid_output', message: `output ${pointer} ${message}`, retryable: true },
      outputErrors: [{ path: pointer, keyword: 'secret', message }],
      ...(outcome.logs ? { logs: outcome.logs } : {}),
    };
  }
  const model = outcome.usage?.model;
  return model === undefined
    ? outcome
    : { ...outcome, usage: { ...outcome.usage, model: redact(model, needles) } };
}

/** Every string (and number) inside the secrets' values long enough to look for, longest first. */
export function secretTexts(values: readonly unknown[]): string[] {
  const found = new Set<string>();
  const stack: unknown[] = [...values];
  while (stack.length > 0) {
    const value = stack.pop();
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text === 'string' && text.length >= MIN_SECRET_MATCH) found.add(text);
    else if (value !== null && typeof value === 'object')
      for (const child of Object.values(value)) stack.push(child);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

interface Visit {
  value: unknown;
  key?: PropertyKey;
  parent?: Visit;
}

/**
 * The path of the first key or string holding one of `needles`. Iterative, and a path is built only
 * for a hit: any nesting an agent sends costs time linear in its size.
 */
export function findSecretText(value: unknown, needles: readonly string[]): PropertyKey[] | undefined {
  const holds = (text: string) => needles.some((needle) => text.includes(needle));
  const stack: Visit[] = [{ value }];
  while (stack.length > 0) {
    const visit = stack.pop();
    if (!visit) break;
    if (typeof visit.value === 'string' && holds(visit.value)) return pathOf(visit);
    if (visit.value === null || typeof visit.value !== 'object') continue;
    const isArray = Array.isArray(visit.value);
    for (const [key, child] of Object.entries(visit.value)) {
      const at: Visit = { value: child, key: isArray ? Number(key) : key, parent: visit };
      if (holds(key)) return pathOf(at);
      stack.push(at);
    }
  }
  return undefined;
}

function pathOf(visit: Visit): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

export function redact(text: string, needles: readonly string[]): string {
  return needles.reduce((out, needle) => out.split(needle).join(REDACTED), text);
}

/** Log lines with every secret's text replaced, in the message and anywhere in the data (keys too). */
function redactLogs(logs: readonly AgentLog[], needles: readonly string[]): AgentLog[] {
  return logs.map((line) => {
    const message = redact(line.message, needles);
    if (line.data === undefined) return { ...line, message };
    try {
      const data = JSON.parse(redact(JSON.stringify(line.data), needles.map(jsonText))) as Record<
        string,
        unknown
      >;
      return { ...line, message, data };
    } catch {
      // A secret that straddled the JSON's syntax: the data is not kept at all.
      return { level: line.level, message };
    }
  });
}

/** A needle as it appears inside a JSON string literal (quotes and backslashes escaped). */
const jsonText = (needle: string) => JSON.stringify(needle).slice(1, -1);

function redactFailure(outcome: Failed, needles: readonly string[]): Failed {
  const text = (value: string) => redact(value, needles);
  const issues = (list?: OutputIssue[]) =>
    list?.map(({ path, message, keyword, facet }) => ({
      path: text(path),
      message: text(message),
      ...(keyword === undefined ? {} : { keyword: text(keyword) }),
      ...(facet === undefined ? {} : { facet: text(facet) }),
    }));
  return {
    ...outcome,
    error: { ...outcome.error, code: text(outcome.error.code), message: text(outcome.error.message) },
    ...(outcome.outputErrors ? { outputErrors: issues(outcome.outputErrors) } : {}),
    ...(outcome.inputErrors ? { inputErrors: issues(outcome.inputErrors) } : {}),
  };
}
