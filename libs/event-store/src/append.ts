import { InvalidAppendError, WrongExpectedVersionError } from './errors';
import type { AppendOptions, ExpectedVersion, NewEvent } from './types';

/** One stream's share of an append (appendBatch takes several of these). */
export interface AppendItem {
  streamId: string;
  events: readonly NewEvent[];
  options: AppendOptions;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function validateAppend(item: AppendItem): void {
  if (typeof item.streamId !== 'string' || item.streamId.length === 0)
    throw new InvalidAppendError('streamId must be a non-empty string');
  const expected = item.options?.expectedVersion;
  const numeric = typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0;
  if (!numeric && expected !== 'any' && expected !== 'no_stream') {
    throw new InvalidAppendError(
      `stream ${item.streamId}: expectedVersion must be a version >= 0, 'any' or 'no_stream'`,
    );
  }
  const key = item.options.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key.length === 0)) {
    throw new InvalidAppendError(`stream ${item.streamId}: idempotencyKey must be a non-empty string`);
  }
  for (const event of item.events) {
    if (!UUID.test(event.id))
      throw new InvalidAppendError(`stream ${item.streamId}: event id ${event.id} is not a UUID`);
    if (typeof event.type !== 'string' || event.type.length === 0)
      throw new InvalidAppendError(`event ${event.id}: type must be a non-empty string`);
    if (event.timestamp !== undefined && !inChainRange(Date.parse(event.timestamp))) {
      throw new InvalidAppendError(
        `event ${event.id}: timestamp ${event.timestamp} is not ISO-8601 in the years 0001-9999`,
      );
    }
  }
}

/** The rule the append statement applies in SQL, here to say why it refused. */
export function checkExpectedVersion(streamId: string, expected: ExpectedVersion, actual: number): void {
  if (expected === 'any') return;
  const wanted = expected === 'no_stream' ? 0 : expected;
  if (wanted !== actual) throw new WrongExpectedVersionError(streamId, expected, actual);
}

const [FIRST_MS, LAST_MS] = [Date.parse('0001-01-01T00:00:00Z'), Date.parse('+010000-01-01T00:00:00Z')];

/** Four-digit years only: the chain hashes the time as `toISOString` and Postgres's to_char both write it. */
function inChainRange(ms: number): boolean {
  return ms >= FIRST_MS && ms < LAST_MS;
}
