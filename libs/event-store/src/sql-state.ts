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
