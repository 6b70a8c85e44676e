/** SQLSTATEs the store reacts to; both pg and PGlite put them on the error as `code`. */
export const UNIQUE_VIOLATION = '23505';
export const SERIALIZATION_FAILURE = '40001';
export const DEADLOCK_DETECTED = '40P01';

export interface SqlState {
  code?: string;
  constraint?: string;
}

export function sqlState(error: unknown): SqlState {
  if (typeof error !== 'object' || error === null) return {};
  const { code, constraint } = error as Record<string, unknown>;
  return {
    code: typeof code === 'string' ? code : undefined,
    constraint: typeof constraint === 'string' ? constraint : undefined,
  };
}

/**
 * The server failed the statement, so it wrote nothing: it answered with an ERROR (which aborts the
 * statement's transaction; pg and PGlite both put the `severity` on the error) and a SQLSTATE not of
 * the classes of a connection going away (08, 57). A FATAL, a lost connection or a local error (no
 * answer) may have come after the statement committed.
 */
export function wroteNothing(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = sqlState(error);
  const { severity } = error as Record<string, unknown>;
  return severity === 'ERROR' && code !== undefined && /^[0-9A-Z]{5}$/.test(code) && !/^(08|57)/.test(code);
}
