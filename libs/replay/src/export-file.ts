import { upcastPayload } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';

/** A line of an export that is not a stored event of the one stream it should hold. */
export class ExportFileError extends Error {
  override name = 'ExportFileError';
  readonly code = 'INVALID_EXPORT';
  constructor(
    readonly line: number,
    readonly path: string,
    reason: string,
  ) {
    super(`line ${line}${path ? ` ${path}` : ''}: ${reason}`);
  }
}

const FIELDS: ReadonlyArray<[keyof StoredEvent, (v: unknown) => boolean, string]> = [
  ['position', (v) => Number.isSafeInteger(v) && (v as number) > 0, 'a positive integer'],
  ['id', (v) => typeof v === 'string' && v.length > 0, 'a non-empty string'],
  ['streamId', (v) => typeof v === 'string' && v.length > 0, 'a non-empty string'],
  ['version', (v) => Number.isSafeInteger(v) && (v as number) > 0, 'a positive integer'],
  ['type', (v) => typeof v === 'string' && v.length > 0, 'a non-empty string'],
  ['metadata', (v) => isObject(v) && typeof v.correlationId === 'string', 'an object with a correlationId'],
  ['timestamp', (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)), 'an ISO-8601 time'],
];

/**
 * The stored events of a run export (`GET runs/:id/export`, `flex export`): NDJSON, one StoredEvent
 * per line. Lines that are not events (a chain-head record has `"kind"`) and blank lines are
 * skipped. The events must be one stream, versions 1, 2, 3… in order: a replay re-decides the whole
 * history. Payloads are upcast to today's shape, as the store reads them. Throws
 * {@link ExportFileError} naming the line and the field.
 */
export function parseExportFile(text: string): StoredEvent[] {
  const events: StoredEvent[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = index + 1;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new ExportFileError(line, '', `not JSON (${(error as Error).message})`);
    }
    if (!isObject(value)) throw new ExportFileError(line, '', 'not a JSON object');
    if ('kind' in value) continue;
    events.push(storedEvent(value, line, events[events.length - 1]));
  }
  return events;
}

function storedEvent(value: Record<string, unknown>, line: number, previous?: StoredEvent): StoredEvent {
  for (const [field, valid, expected] of FIELDS) {
    if (!valid(value[field])) throw new ExportFileError(line, `/${field}`, `expected ${expected}`);
  }
  if (!('payload' in value)) throw new ExportFileError(line, '/payload', 'missing');
  const event = value as unknown as StoredEvent;
  const version = (previous?.version ?? 0) + 1;
  if (previous && event.streamId !== previous.streamId)
    throw new ExportFileError(
      line,
      '/streamId',
      `${event.streamId} is not ${previous.streamId}: one stream per file`,
    );
  if (event.version !== version)
    throw new ExportFileError(
      line,
      '/version',
      `expected ${version} (events of one stream, in order, from 1), got ${event.version}`,
    );
  return { ...event, payload: upcastPayload(event.type, event.payload) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
