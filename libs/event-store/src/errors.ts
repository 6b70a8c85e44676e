import type { ExpectedVersion } from './types';

interface ErrorOptions {
  cause?: unknown;
}

/** Every error the store raises: a stable `code` to branch on, and whether retrying can help. */
export abstract class EventStoreError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;

  constructor(message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** The stream moved since the writer loaded it: reload, decide again, append again. */
export class WrongExpectedVersionError extends EventStoreError {
  override readonly name = 'WrongExpectedVersionError';
  readonly code = 'WRONG_EXPECTED_VERSION';
  readonly retryable = true;

  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
    options: ErrorOptions = {},
  ) {
    super(`stream ${streamId}: expected version ${String(expected)}, actual ${actual}`, options);
  }
}

/** Concurrent writers kept colliding (an `any` append lost its race, a deadlock, ...) past the retry budget. */
export class ConcurrencyConflictError extends EventStoreError {
  override readonly name = 'ConcurrencyConflictError';
  readonly code = 'CONCURRENCY_CONFLICT';
  readonly retryable = true;
}

/** An event id that is already stored was appended again without an idempotency key to say it is a replay. */
export class DuplicateEventIdError extends EventStoreError {
  override readonly name = 'DuplicateEventIdError';
  readonly code = 'DUPLICATE_EVENT_ID';
  readonly retryable = false;
}

/** The same idempotency key was used for a different stream: a bug in how the caller builds keys. */
export class IdempotencyKeyConflictError extends EventStoreError {
  override readonly name = 'IdempotencyKeyConflictError';
  readonly code = 'IDEMPOTENCY_KEY_CONFLICT';
  readonly retryable = false;

  constructor(
    readonly idempotencyKey: string,
    readonly storedStreamId: string,
    readonly streamId: string,
  ) {
    super(`idempotency key ${idempotencyKey} belongs to stream ${storedStreamId}, not ${streamId}`);
  }
}

/** The append itself is malformed (empty stream id, bad expected version, an event id that is not a UUID). */
export class InvalidAppendError extends EventStoreError {
  override readonly name = 'InvalidAppendError';
  readonly code = 'INVALID_APPEND';
  readonly retryable = false;
}

/** A read, a checkpoint or an option that cannot be right (a limit of 0, a malformed checkpoint, ...). */
export class InvalidArgumentError extends EventStoreError {
  override readonly name = 'InvalidArgumentError';
  readonly code = 'INVALID_ARGUMENT';
  readonly retryable = false;
}

/** createDatabase was given a config it cannot use. */
export class DatabaseConfigError extends EventStoreError {
  override readonly name = 'DatabaseConfigError';
  readonly code = 'INVALID_DATABASE_CONFIG';
  readonly retryable = false;
}

/** A schema migration failed; the service must not start on a schema it does not know. */
export class MigrationError extends EventStoreError {
  override readonly name = 'MigrationError';
  readonly code = 'MIGRATION_FAILED';
  readonly retryable = false;
}

/** A projection's apply (or reset) threw; its writes and its checkpoint were rolled back together. */
export class ProjectionFailedError extends EventStoreError {
  override readonly name = 'ProjectionFailedError';
  readonly code = 'PROJECTION_FAILED';
  readonly retryable = true;

  constructor(
    readonly projection: string,
    readonly position: number | undefined,
    options: ErrorOptions = {},
  ) {
    const at = position === undefined ? '' : ` at position ${position}`;
    super(`projection ${projection} failed${at}: ${describe(options.cause)}`, options);
  }
}

/**
 * An event's payload was read where it had been left out of the read (Projection.unreadPayloads): the
 * projection reads a payload it declared it does not. A bug in that declaration; retrying cannot help.
 */
export class PayloadLeftOutError extends EventStoreError {
  override readonly name = 'PayloadLeftOutError';
  readonly code = 'PAYLOAD_LEFT_OUT';
  readonly retryable = false;

  constructor(
    readonly eventType: string,
    readonly eventId: string,
  ) {
    super(`the payload of ${eventType} event ${eventId} was left out of this read`);
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
