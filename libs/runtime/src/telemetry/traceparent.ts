/**
 * A W3C trace context header: `version-traceid-parentid-flags`, lowercase hex. Version `ff` is
 * invalid; an all-zero trace or parent id is invalid; a future version may append fields.
 */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

export interface TraceIds {
  traceId: string;
  spanId: string;
}

/** The trace and parent span ids of a valid `traceparent`; undefined for anything else. */
export function traceIdsOf(traceparent: unknown): TraceIds | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const [, version, traceId, spanId, , rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId };
}
