import {
  context,
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TimeInput,
} from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from './traceparent';

/** The instrumentation scope of every Flex span. */
export const TRACER_NAME = 'flex';

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** The parent; default: the active context. */
  parent?: Context;
  startTime?: TimeInput;
}

/**
 * The tracer, asked for at each use: a process that stops tracing and starts again (tests) gets
 * the provider registered now, not the one a cached tracer remembers. Without an SDK registered
 * every span is a no-op and costs next to nothing.
 */
function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** The context whose parent span `traceparent` names (a remote parent); `base` when it names none. */
export function contextOf(traceparent: string | undefined, base: Context = ROOT_CONTEXT): Context {
  const parent = parseTraceparent(traceparent);
  if (!parent) return base;
  return trace.setSpanContext(base, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.flags,
    isRemote: true,
  });
}

/**
 * The `traceparent` of `span`, or of the span current in `ctx` (default: the active one); none when
 * there is no valid span. With tracing off, a span started under a caller's context still carries it.
 */
export function traceparentOf(from: Context | Span = context.active()): string | undefined {
  const sc = isSpan(from) ? from.spanContext() : trace.getSpanContext(from);
  if (!sc || !isSpanContextValid(sc)) return undefined;
  return formatTraceparent({ traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags });
}

/** Run `fn` with the span `traceparent` names as the active context (a run's handlers, an agent's work). */
export function withTraceparent<T>(traceparent: string | undefined, fn: () => T): T {
  return traceparent === undefined ? fn() : context.with(contextOf(traceparent), fn);
}

/**
 * Run `fn` in a new span, active while it runs, ended when it settles. A failure marks the span
 * with its error code only: messages can quote inputs, and inputs never go into spans.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, spanOptions(options), parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (error) {
    markFailed(span, errorCode(error));
    throw error;
  } finally {
    span.end();
  }
}

/**
 * {@link inSpan} only inside a trace (a span is active): store appends and bus publishes are parts
 * of the work that caused them, never traces of their own.
 */
export function inChildSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span?: Span) => Promise<T>,
): Promise<T> {
  if (!trace.getActiveSpan()) return fn(undefined);
  return inSpan(name, options, fn);
}

/**
 * {@link inSpan} as the child of a caller in another process, when its message carried a valid
 * `traceparent`; without one, `fn` runs untraced (heartbeats and registrations start no traces).
 */
export function inRemoteSpan<T>(
  traceparent: string | undefined,
  name: string,
  options: Omit<SpanOptions, 'parent'>,
  fn: (span?: Span) => Promise<T>,
): Promise<T> {
  const parent = contextOf(traceparent);
  if (parent === ROOT_CONTEXT) return fn(undefined);
  return inSpan(name, { ...options, parent }, fn);
}

/** The headers that carry the active span to a request's receiver (none outside a trace). */
export function traceHeaders(): Record<string, string> | undefined {
  const traceparent = traceparentOf();
  return traceparent ? { traceparent } : undefined;
}

/**
 * A span for something whose start was recorded earlier (a HITL request waiting for its decision,
 * a policy's evaluation read from its event): started at `startTime`, ended now.
 */
export function recordSpan(name: string, options: SpanOptions & { error?: string }): void {
  const span = tracer().startSpan(name, spanOptions(options), options.parent ?? context.active());
  if (options.error !== undefined) markFailed(span, options.error);
  span.end();
}

/** Mark a span failed with `code` (the `error.type` semantic convention). */
export function markFailed(span: Span, code: string): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}

function isSpan(value: Context | Span): value is Span {
  return typeof (value as Partial<Span>).spanContext === 'function';
}

function spanOptions(options: SpanOptions) {
  return {
    kind: options.kind ?? SpanKind.INTERNAL,
    attributes: options.attributes,
    links: options.links,
    startTime: options.startTime,
  };
}

/** An error's stable `code`, else its name: never its message. */
function errorCode(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | null;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.name === 'string' ? e.name : 'error';
}
