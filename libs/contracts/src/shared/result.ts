/** The outcome of an operation that reports failure as a value instead of throwing. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** A successful {@link Result}. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** A failed {@link Result}. */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
