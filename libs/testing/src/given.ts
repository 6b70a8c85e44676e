import type { StoredEvent } from '@flex/event-store';

/**
 * Given-events for decider specs: stored events of one stream with versions, positions and
 * timestamps filled in (one second apart from `start`).
 */
export function givenEvents(
  streamId: string,
  events: Array<{ type: string; payload: unknown; id?: string }>,
  start = '2026-01-01T00:00:00.000Z',
): StoredEvent[] {
  const t0 = Date.parse(start);
  return events.map((e, i) => ({
    position: i + 1,
    id: e.id ?? `${streamId}-e${i + 1}`,
    streamId,
    version: i + 1,
    type: e.type,
    payload: e.payload,
    metadata: { correlationId: 'corr-1' },
    timestamp: new Date(t0 + i * 1000).toISOString(),
  }));
}
