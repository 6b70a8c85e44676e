import { parseTraceparent, traceparentOf } from '@flex/tracing';

/** Structurally the same as `@flex/runtime`'s Logger, so either can be passed in. */
export interface AgentLogger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

const noop = (): void => undefined;

export const silentLogger: AgentLogger = { debug: noop, info: noop, warn: noop, error: noop };

/**
 * One JSON line per event, written to `write` (stderr by default). A line written while a span is
 * active (an invocation's `agent.invoke`, when the process traces) carries its `trace_id` and
 * `span_id`, as Flex's own lines do (docs/OBSERVABILITY.md).
 */
export function jsonLineLogger(
  bindings: Record<string, unknown> = {},
  write: (line: string) => void = (line) => process.stderr.write(line),
): AgentLogger {
  const at = (level: string) => (msg: string, data?: Record<string, unknown>) => {
    const ids = parseTraceparent(traceparentOf());
    const traced = ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
    const line = { time: new Date().toISOString(), level, msg, ...bindings, ...traced, ...data };
    write(`${JSON.stringify(line, errorReplacer)}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, code: (value as { code?: unknown }).code };
  }
  return value;
}
