/**
 * Whether an error says the database could not be reached or went away (not that a statement was
 * wrong): a connection refused, reset or cut, Postgres shutting down or starting up, a pool that
 * could not connect in time. The caller may try again later; the gateway answers 503.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** Node's socket errors, and Postgres's admin_shutdown, crash_shutdown, cannot_connect_now (class 08 is every connection exception). */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  '57P01',
  '57P02',
  '57P03',
]);

/** What `pg` and `pg-pool` say when a connection ends or cannot be had, without a code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];
