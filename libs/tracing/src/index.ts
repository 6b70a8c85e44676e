export { parseTraceparent, formatTraceparent, type TraceParent } from './traceparent';
export {
  TRACER_NAME,
  contextOf,
  traceparentOf,
  withTraceparent,
  inSpan,
  inChildSpan,
  inRemoteSpan,
  traceHeaders,
  recordSpan,
  markFailed,
  type SpanOptions,
} from './spans';
export { ATTR } from './attributes';
export { SpanKind, type Span } from '@opentelemetry/api';
export { inChatSpan, type ChatSpanResult } from './chat-span';
