import { upcastPayload } from '@flex/contracts';
import { ExportFormatError, parseExport, type StoredEvent } from '@flex/event-store';

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
 * The stored events of a run export (`GET runs/:id/export`, `flex export`), read by the one reader
 * of that format (event-store's `parseExport`: one ChainedEvent per line, a last line
 * `{"head": …}`). The events must be one stream, versions 1, 2, 3… in order (a replay re-decides
 * the whole history), and the head must be that stream's. Payloads are upcast to today's shape, as
 * the store reads them. Throws {@link ExportFileError} naming the line and the field.
 */
export function parseExportFile(text: string): StoredEvent[] {
  let exported: ReturnType<typeof parseExport>;
  try {
    exported = parseExport(text);
  } catch (error) {
    if (!(error instanceof ExportFormatError)) throw error;
    throw new ExportFileError(error.line, '', error.message.replace(/^line \d+: /, ''));
  }
  const events: StoredEvent[] = [];
  for (const [index, value] of exported.events.entries())
    events.push(storedEvent(value as unknown as Record<string, unknown>, index + 1, events.at(-1)));
  const { head } = exported;
  const last = events.at(-1);
  if (last && head.streamId !== last.streamId)
    throw new ExportFileError(
      events.length + 1,
      '/head/streamId',
      `${head.streamId} is not ${last.streamId}`,
    );
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
  const { position, id, streamId, type, metadata, timestamp } = event;
  return {
    position,
    id,
    streamId,
    version,
    type,
    payload: upcastPayload(type, event.payload),
    metadata,
    timestamp,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
