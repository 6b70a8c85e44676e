import type { ReadableSpan } from '@opentelemetry/sdk-trace';

/** A finished span as the trace tests read it, from the in-memory exporter or from OTLP/JSON. */
export interface TraceSpan {
  name: string;
  traceId: string;
  spanId: string;
  /** The parent's span id; none for a root. */
  parentSpanId?: string;
  /** The exporting process (`service.name`). */
  service: string;
  attributes: Record<string, unknown>;
  /** Status, events and links: the rest of what a span carries. */
  rest?: unknown;
}

/** A span of the in-memory exporter, as a {@link TraceSpan}. */
export function fromReadableSpan(span: ReadableSpan): TraceSpan {
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    service: String(span.resource.attributes['service.name']),
    attributes: { ...span.attributes },
    rest: { status: span.status, events: span.events, links: span.links },
  };
}

/** Spans whose parent is neither among `spans` nor `allowedParent` (the caller's own span). */
export function orphans(spans: readonly TraceSpan[], allowedParent?: string): TraceSpan[] {
  const ids = new Set(spans.map((s) => s.spanId));
  return spans.filter(
    (s) => s.parentSpanId !== undefined && s.parentSpanId !== allowedParent && !ids.has(s.parentSpanId),
  );
}

/** The names of the parents of every span called `name`. */
export function parentNames(spans: readonly TraceSpan[], name: string): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  return spans
    .filter((s) => s.name === name)
    .map((s) => (s.parentSpanId ? (byId.get(s.parentSpanId)?.name ?? '(outside)') : '(root)'));
}

/** Everything a span carries, as text: for "this value never appears in any span" checks. */
export function spanText(spans: readonly TraceSpan[]): string {
  return JSON.stringify(spans);
}
