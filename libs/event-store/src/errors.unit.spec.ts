import {
  ConcurrencyConflictError,
  DatabaseConfigError,
  DuplicateEventIdError,
  EventStoreError,
  IdempotencyKeyConflictError,
  InvalidAppendError,
  InvalidArgumentError,
  MigrationError,
  ProjectionFailedError,
  WrongExpectedVersionError,
} from './errors';

describe('event store errors', () => {
  const cause = new Error('underlying');
  const cases: Array<[EventStoreError, string, string, boolean]> = [
    [
      new WrongExpectedVersionError('run-1', 3, 5, { cause }),
      'WrongExpectedVersionError',
      'WRONG_EXPECTED_VERSION',
      true,
    ],
    [
      new ConcurrencyConflictError('lost', { cause }),
      'ConcurrencyConflictError',
      'CONCURRENCY_CONFLICT',
      true,
    ],
    [new DuplicateEventIdError('dup', { cause }), 'DuplicateEventIdError', 'DUPLICATE_EVENT_ID', false],
    [
      new IdempotencyKeyConflictError('k', 'a', 'b'),
      'IdempotencyKeyConflictError',
      'IDEMPOTENCY_KEY_CONFLICT',
      false,
    ],
    [new InvalidAppendError('bad'), 'InvalidAppendError', 'INVALID_APPEND', false],
    [new InvalidArgumentError('bad'), 'InvalidArgumentError', 'INVALID_ARGUMENT', false],
    [new DatabaseConfigError('bad'), 'DatabaseConfigError', 'INVALID_DATABASE_CONFIG', false],
    [new MigrationError('bad', { cause }), 'MigrationError', 'MIGRATION_FAILED', false],
    [new ProjectionFailedError('runs', 12, { cause }), 'ProjectionFailedError', 'PROJECTION_FAILED', true],
  ];

  it.each(cases)(
    '%s has its name, a stable code and says whether to retry',
    (error, name, code, retryable) => {
      expect(error).toBeInstanceOf(Error);
      expect(error).toBeInstanceOf(EventStoreError);
      expect(error).toMatchObject({ name, code, retryable });
    },
  );

  it('keeps the cause and the facts of a version conflict', () => {
    const error = new WrongExpectedVersionError('run-1', 'no_stream', 2, { cause });
    expect(error.cause).toBe(cause);
    expect(error).toMatchObject({ streamId: 'run-1', expected: 'no_stream', actual: 2 });
    expect(error.message).toBe('stream run-1: expected version no_stream, actual 2');
    expect(new ProjectionFailedError('runs', 12, { cause }).message).toBe(
      'projection runs failed at position 12: underlying',
    );
  });
});
