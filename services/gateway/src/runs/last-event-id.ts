import { apiError } from '../http/api-error';

/** Decimal digits only: `Number()` would also take `1e3`, `0x10`, `0b1` and ` 5 `. */
const POSITION = /^[0-9]+$/;

/**
 * The store position a `Last-Event-ID` names (0 when there is none): what the client has, so the
 * stream sends what comes after it. Anything but a non-negative integer written in decimal is a 400
 * `invalid_last_event_id`.
 */
export function parseLastEventId(header: string | undefined): number {
  if (header === undefined || header === '') return 0;
  const position = POSITION.test(header) ? Number(header) : NaN;
  if (!Number.isSafeInteger(position))
    throw apiError(
      400,
      'invalid_last_event_id',
      'Last-Event-ID must be an event position (a non-negative integer, in decimal digits)',
      { header: 'Last-Event-ID' },
    );
  return position;
}
