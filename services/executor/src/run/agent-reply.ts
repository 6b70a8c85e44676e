import type { OutputIssue } from '@flex/run-model';

/** Usage as the agent reported it, kept only when well-formed (it feeds `tokens` / `costCents`). */
export function usageOf(value: unknown): { tokens?: number; costCents?: number; model?: string } | undefined {
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
export function facetIssuesOf(details: unknown): OutputIssue[] | undefined {
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

/** One line an agent logged during an attempt, as its answer carried it (checked: see {@link agentLogsOf}). */
export interface AgentLog {
  level: 'info' | 'warn' | 'error';
  message: string;
  data?: Record<string, unknown>;
}

const LOG_LEVELS = new Set(['info', 'warn', 'error']);
/** At most this many lines of one attempt are recorded, each cut to size (the SDK sends fewer). */
const LOG_LIMITS = { lines: 25, messageLength: 2_000, dataBytes: 4_000 } as const;

/**
 * The log lines an agent's answer carries (`logs`, or `details.logs` of an error): well-formed ones
 * only, at most LOG_LIMITS, a message cut to size, data kept only when it is a small JSON object.
 */
export function agentLogsOf(value: unknown): AgentLog[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const logs = value.slice(0, LOG_LIMITS.lines).flatMap((raw): AgentLog[] => {
    const line = (raw ?? {}) as Record<string, unknown>;
    if (typeof line.level !== 'string' || !LOG_LEVELS.has(line.level)) return [];
    if (typeof line.message !== 'string' || line.message.length === 0) return [];
    const message = line.message.slice(0, LOG_LIMITS.messageLength);
    const data = smallObject(line.data);
    return [{ level: line.level as AgentLog['level'], message, ...(data ? { data } : {}) }];
  });
  return logs.length ? logs : undefined;
}

function smallObject(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const text = JSON.stringify(value);
  return Buffer.byteLength(text) <= LOG_LIMITS.dataBytes
    ? (JSON.parse(text) as Record<string, unknown>)
    : undefined;
}
