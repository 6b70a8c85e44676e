/**
 * A W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header),
 * version 00: the only form Flex accepts from outside and writes into event metadata and NATS headers.
 */
export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero: the parent span. */
  spanId: string;
  /** 0–255; bit 0 is `sampled`. */
  flags: number;
}

const VERSION_00 = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZERO = /^0+$/;

/**
 * The trace context a header carries, or undefined when it is not a well-formed version-00
 * `traceparent` (any other version, upper case, extra fields, whitespace, an all-zero id): such a
 * header is ignored and a fresh trace starts, as the W3C recommendation says.
 */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  if (typeof value !== 'string') return undefined;
  const match = VERSION_00.exec(value);
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match;
  if (ALL_ZERO.test(traceId) || ALL_ZERO.test(spanId)) return undefined;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}

/** The version-00 header of a trace context (the inverse of {@link parseTraceparent}). */
export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${(parent.flags & 0xff).toString(16).padStart(2, '0')}`;
}
