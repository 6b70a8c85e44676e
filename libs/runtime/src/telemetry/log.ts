import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream } from 'pino';
import { parseTraceparent } from '@flex/tracing';

/** The levels of `FLEX_LOG_LEVEL`, quietest last. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What a line may carry beside its message: plain JSON, errors under `err` or `error`. */
export type LogData = Record<string, unknown>;

export interface Logger {
  trace(msg: string, data?: LogData): void;
  debug(msg: string, data?: LogData): void;
  info(msg: string, data?: LogData): void;
  warn(msg: string, data?: LogData): void;
  error(msg: string, data?: LogData): void;
  fatal(msg: string, data?: LogData): void;
  child(bindings: LogData): Logger;
}

export interface LoggerOptions {
  /** The `service` field of every line (`gateway`, `executor`…, `flex` for the embedded process). */
  service: string;
  level: LogLevel;
  /**
   * Where the JSON lines go: `process.stdout` unless given (synchronous for files and pipes on
   * Linux, so a line written before `process.exit` is not lost; tests pass their own).
   */
  destination?: DestinationStream;
}

/**
 * One JSON line per entry on stdout: `level` (its name), `time` (ISO-8601), `service`, `msg`, the
 * data given, and `trace_id` / `span_id` of the active OpenTelemetry span when there is one. A
 * line that names its own `traceparent` (a line about a stored event, see log-events.ts) takes the
 * ids from it instead, and the raw header is not written. Errors under `err` or `error` become
 * `{ type, message, stack, code? }` on the one line.
 */
export function createLogger(options: LoggerOptions): Logger {
  const root = pino(
    {
      level: options.level,
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
      mixin: activeSpanIds,
    },
    options.destination ?? process.stdout,
  );
  return wrap(root);
}

function wrap(p: pino.Logger): Logger {
  const at =
    (level: Exclude<LogLevel, 'silent'>) =>
    (msg: string, data?: LogData): void => {
      if (!p.isLevelEnabled(level)) return;
      p[level](withTraceIds(data), msg);
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: (bindings) => wrap(p.child(bindings)),
  };
}

/** The ids of the span active where the line is written, if any (pino's mixin; the line's own win). */
function activeSpanIds(): LogData {
  const span = trace.getSpan(context.active());
  const ids = span?.spanContext();
  return ids && isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

function withTraceIds(data: LogData | undefined): LogData {
  if (!data || !('traceparent' in data)) return data ?? {};
  const { traceparent, ...rest } = data;
  const ids = parseTraceparent(traceparent);
  return ids ? { ...rest, trace_id: ids.traceId, span_id: ids.spanId } : rest;
}

/** A logger that writes nothing (tests, and libraries given none). */
export const silentLogger: Logger = createLogger({ service: 'silent', level: 'silent' });
