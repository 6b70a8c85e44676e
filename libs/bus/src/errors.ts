/**
 * One class per condition, each with a stable `code` and a `retryable` flag. Callers check the
 * code (and `retryable`), not `instanceof`: errors cross process boundaries as plain data.
 */

interface ErrorOptions {
  cause?: unknown;
}

/** Whether retrying can help: anything not explicitly `retryable: false` is worth a retry. */
export function isRetryable(error: unknown): boolean {
  return !(
    typeof error === 'object' &&
    error !== null &&
    (error as { retryable?: unknown }).retryable === false
  );
}

/** The bus (or messaging) was closed; nothing more goes through it. */
export class BusClosedError extends Error {
  override readonly name = 'BusClosedError';
  readonly code = 'BUS_CLOSED';
  readonly retryable = false;
  constructor(what: string) {
    super(`${what}: closed`);
  }
}

/** Options that can never work (bad prefix, non-positive limits, ...): fix the caller. */
export class InvalidBusOptionsError extends Error {
  override readonly name = 'InvalidBusOptionsError';
  readonly code = 'INVALID_BUS_OPTIONS';
  readonly retryable = false;
}

/** A subject token that `encodeSubjectToken` could not have produced (or an empty id). */
export class InvalidSubjectTokenError extends Error {
  override readonly name = 'InvalidSubjectTokenError';
  readonly code = 'INVALID_SUBJECT_TOKEN';
  readonly retryable = false;
  constructor(
    readonly token: string,
    reason: string,
  ) {
    super(`invalid subject token "${token}": ${reason}`);
  }
}

/** JetStream did not store (or did not acknowledge storing) an event; the record is Postgres, publish again. */
export class PublishFailedError extends Error {
  override readonly name = 'PublishFailedError';
  readonly code = 'PUBLISH_FAILED';
  readonly retryable = true;
  constructor(
    readonly eventId: string,
    options: ErrorOptions,
  ) {
    super(`publishing event ${eventId} failed: ${describe(options.cause)}`, options);
  }
}

/** A message whose body cannot be read (not JSON, or not a StoredEvent where one is due); retrying cannot help. */
export class MalformedMessageError extends Error {
  override readonly name = 'MalformedMessageError';
  readonly code = 'MALFORMED_MESSAGE';
  readonly retryable = false;
  constructor(
    readonly subject: string,
    options: ErrorOptions,
  ) {
    super(`unreadable message on ${subject}: ${describe(options.cause)}`, options);
  }
}

/** A request that did not get a successful reply. `code` is the responder's code for remote errors. */
export class MessagingError extends Error {
  override name = 'MessagingError';
  readonly details?: unknown;
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly subject: string,
    options: ErrorOptions & { details?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.details = options.details;
  }
}

/** Nobody serves the subject (right now): fails fast instead of waiting for the timeout. */
export class NoRespondersError extends MessagingError {
  override name = 'NoRespondersError';
  constructor(subject: string, options: ErrorOptions = {}) {
    super('NO_RESPONDERS', `no responders on ${subject}`, true, subject, options);
  }
}

/** JetStream ended a pull request with a status other than "no messages" or "expired" (409 consumer deleted, 400…). */
export class PullRefusedError extends Error {
  override readonly name = 'PullRefusedError';
  readonly code = 'PULL_REFUSED';
  readonly retryable = true;
  constructor(
    readonly status: number,
    description: string,
  ) {
    super(`pull request ended with status ${status}${description ? ` (${description})` : ''}`);
  }
}

/** No reply within the timeout; the request may or may not have been handled. */
export class RequestTimeoutError extends MessagingError {
  override name = 'RequestTimeoutError';
  constructor(subject: string, timeoutMs: number, options: ErrorOptions = {}) {
    super('TIMEOUT', `no reply on ${subject} within ${timeoutMs}ms`, true, subject, options);
  }
}

/**
 * The connection to NATS was down (disconnected or reconnecting) while the request waited: nobody
 * could have answered, so the request says nothing about the responder. Ask again once reconnected.
 */
export class BusDisconnectedError extends MessagingError {
  override name = 'BusDisconnectedError';
  constructor(subject: string, options: ErrorOptions = {}) {
    super(
      'BUS_DISCONNECTED',
      `the NATS connection was down while requesting on ${subject}`,
      true,
      subject,
      options,
    );
  }
}

/**
 * The NATS server refused this identity the subject (its permissions do not allow publishing or
 * subscribing there). Retrying cannot help: the server's permission table has to change.
 */
export class PermissionDeniedError extends MessagingError {
  override name = 'PermissionDeniedError';
  constructor(subject: string, operation: 'publish' | 'subscribe', options: ErrorOptions = {}) {
    super('PERMISSION_DENIED', `NATS refused to ${operation} on ${subject}`, false, subject, options);
  }
}

/** The responder's handler failed; `code`, `retryable` and `details` are the ones it replied with. */
export class RemoteError extends MessagingError {
  override name = 'RemoteError';
  constructor(subject: string, remote: WireError) {
    super(remote.code, remote.message, remote.retryable, subject, { details: remote.details });
  }
}

/** How a handler's failure travels in an error reply. */
export interface WireError {
  code: string;
  message: string;
  retryable: boolean;
  details?: unknown;
}

/** A thrown value as a WireError: its own `code`/`retryable` when it has them, else REMOTE_ERROR, retryable. */
export function toWireError(error: unknown): WireError {
  const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
  const wire: WireError = {
    code: typeof e.code === 'string' && e.code ? e.code : 'REMOTE_ERROR',
    message: typeof e.message === 'string' ? e.message : describe(error),
    retryable: isRetryable(error),
  };
  if (e.details !== undefined) wire.details = e.details;
  return wire;
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
  ) {
    return (error as { message: string }).message;
  }
  return String(error);
}
