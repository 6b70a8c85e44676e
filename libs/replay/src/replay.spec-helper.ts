import type { EventMetadata, StoredEvent } from '@flex/event-store';

/** A stream of events for the re-decider's specs: `[type, payload, metadata?, timestamp?]` each. */
export function stream(
  ...items: ReadonlyArray<readonly [string, unknown, Partial<EventMetadata>?, string?]>
): StoredEvent[] {
  return items.map(([type, payload, metadata, timestamp], i) => ({
    position: 100 + i,
    id: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    streamId: 'run-r1',
    version: i + 1,
    type,
    payload,
    metadata: { correlationId: 'c', ...metadata },
    timestamp: timestamp ?? '2026-01-01T00:00:00.000Z',
  }));
}
