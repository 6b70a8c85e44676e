export * from './types';
export {
  EventStoreError,
  WrongExpectedVersionError,
  ConcurrencyConflictError,
  DuplicateEventIdError,
  IdempotencyKeyConflictError,
  InvalidAppendError,
  InvalidArgumentError,
  DatabaseConfigError,
  MigrationError,
  ProjectionFailedError,
  PayloadLeftOutError,
} from './errors';
export { createDatabase, type DatabaseConfig, type FlexDatabase } from './database';
export { isDatabaseUnavailable } from './database-unavailable';
export { migrateToLatest } from './migrate';
export { compressWithLz4 } from './compression';
export { eventStoreMigrations } from './migrations';
export type { EventStoreDatabase } from './event-store.table';
export { EventStore, type CommitFollower, type EventStoreOptions } from './event-store';
export type { AppendItem } from './append';
export { readStreamEvents, type ReadStreamOptions, type ReadAllPage } from './read';
export { OutboxRelay, type OutboxRelayOptions } from './outbox-relay';
export type { Projection, ProjectionReplay } from './projection';
export { ProjectionRunner, sentAhead, type ProjectionRunnerOptions } from './projection-runner';
export { loadCheckpoint, saveCheckpoint, compareCheckpoints } from './checkpoints';
export {
  recordDeadLetter,
  listDeadLetters,
  type DeadLetterRecord,
  type StoredDeadLetter,
  type ListDeadLettersOptions,
} from './dead-letters';
export { createEventLog, type EventLog } from './event-log';
export { storeSealedSecrets, loadSealedSecrets, type SealedSecret } from './secrets';
export { fallbackLogger, type StoreLogger } from './logger';
export { typedEvent, payloadOf, type TypedEvent, type TypedEventOf } from './typed-event';
export {
  GENESIS_HASH,
  chainHash,
  chainHead,
  contentDigest,
  type ChainedEvent,
  type ChainHead,
} from './chain';
export { verifyChain, type ChainFault, type ChainProblem, type ChainVerdict } from './chain-verify';
export {
  exportLines,
  parseExport,
  signHead,
  checkHeadSignature,
  verifyExport,
  ExportFormatError,
  type ExportedHead,
  type ExportVerdict,
  type HeadSignature,
  type SignatureCheck,
} from './chain-export';
export { ArchiveUnavailableError, DirectoryArchiveStore, type ArchiveStore } from './archive-store';
export { S3ArchiveStore, type S3ArchiveOptions } from './archive-s3';
export { archiveName, decodeArchive, encodeArchive, verifyArchive } from './archive-format';
export {
  archiveRun,
  ArchiveVerifyError,
  describeFault,
  type ArchiveHooks,
  type ArchiveOutcome,
  type ArchiveRunOptions,
} from './archive-run';
export {
  findArchive,
  findFinishedRuns,
  readArchivedChain,
  storedEvents,
  type ArchiveRecord,
} from './archive-read';
export type { ArchiveDatabase } from './archive.table';
