import { upcastPayload } from '@flex/contracts';
import { PayloadLeftOutError } from './errors';
import type { EventMetadata, StoredEvent } from './types';

/** An events row as the driver hands it over: bigint as string (pg) or number (PGlite). */
export interface EventRow {
  position: string | number;
  id: string;
  stream_id: string;
  version: number | string;
  type: string;
  payload: unknown;
  metadata: EventMetadata;
  recorded_at: Date | string;
}

/** Positions are numbers at the store boundary, whatever the driver returned. */
export function toPosition(value: string | number | bigint): number {
  const position = Number(value);
  if (!Number.isSafeInteger(position) || position < 0) {
    throw new RangeError(`not a valid log position: ${String(value)}`);
  }
  return position;
}

/** A row as readers see it: positions as numbers, and the payload in today's shape (upcast). */
export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    position: toPosition(row.position),
    id: row.id,
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    payload: upcastPayload(row.type, row.payload),
    metadata: row.metadata,
    timestamp: toIsoString(row.recorded_at),
  };
}

/**
 * A row whose payload was left out of the read: the event without it. Its `payload` throws rather
 * than stand for one: nothing can read a missing payload as the event's.
 */
export function toPayloadlessEvent(row: EventRow): StoredEvent {
  return {
    position: toPosition(row.position),
    id: row.id,
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    get payload(): unknown {
      throw new PayloadLeftOutError(row.type, row.id);
    },
    metadata: row.metadata,
    timestamp: toIsoString(row.recorded_at),
  };
}

/** Millisecond ISO-8601 in UTC, the same on both drivers (microseconds are dropped). */
export function toIsoString(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
