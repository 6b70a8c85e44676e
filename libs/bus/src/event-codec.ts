import type { StoredEvent } from '@flex/event-store';
import { MalformedMessageError } from './errors';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Events travel as their JSON (payloads are JSON-safe by contract). */
export function encodeEvent(event: StoredEvent): Uint8Array {
  return encoder.encode(JSON.stringify(event));
}

export function decodeEvent(subject: string, data: Uint8Array): StoredEvent {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(data));
  } catch (cause) {
    throw new MalformedMessageError(subject, { cause });
  }
  if (!isStoredEvent(value))
    throw new MalformedMessageError(subject, { cause: 'not a stored event (id, streamId, type, position)' });
  return value;
}

function isStoredEvent(value: unknown): value is StoredEvent {
  const e = value as Partial<StoredEvent> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.id === 'string' &&
    typeof e.streamId === 'string' &&
    typeof e.type === 'string' &&
    typeof e.position === 'number'
  );
}
