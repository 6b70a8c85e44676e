import type { StoredEvent } from '@flex/event-store';
import { ATTR, contextOf, inSpan, SpanKind, traceparentOf } from '@flex/tracing';

/**
 * Send `event` inside a `bus.publish` span of its run's trace (the event's `traceparent`), when it
 * has one; `send` gets the traceparent for the message's headers. The span's parent is the event's
 * trace, not whatever is active: a group commit publishes the events of many runs at once.
 */
export function inPublishSpan(
  event: StoredEvent,
  subject: string,
  send: (traceparent?: string) => Promise<void>,
): Promise<void> {
  const traceparent = event.metadata.traceparent;
  if (!traceparent) return send(undefined);
  const options = {
    kind: SpanKind.PRODUCER,
    parent: contextOf(traceparent),
    attributes: {
      [ATTR.messagingSystem]: 'nats',
      [ATTR.messagingOperation]: 'publish',
      [ATTR.messagingDestination]: subject,
      [ATTR.eventType]: event.type,
      [ATTR.streamId]: event.streamId,
    },
  };
  return inSpan('bus.publish', options, (span) => send(traceparentOf(span) ?? traceparent));
}
