import {
  archiveRun,
  DirectoryArchiveStore,
  findFinishedRuns,
  S3ArchiveStore,
  type ArchiveHooks,
  type ArchiveOutcome,
  type ArchiveStore,
  type EventStore,
  type FlexDatabase,
} from '@flex/event-store';
import { sql } from 'kysely';
import {
  archiveTarget,
  retentionSettings,
  type ArchiveTarget,
  type RetentionSettings,
} from './retention-config';
import { ConfigError } from './config';
import type { ServiceRuntime } from './runtime';

/** The advisory lock one retention cycle holds, so instances sharing a database take turns. */
const RETENTION_LOCK = 7_426_591_301;

export interface RetentionCycleOptions {
  settings: Pick<RetentionSettings, 'ageMs' | 'batch'>;
  archives: ArchiveStore;
  signingKey?: string;
  hooks?: ArchiveHooks;
  /** The cycle's clock reading: runs whose last event is older than `now - ageMs` are archived. */
  now: Date;
  /** The process's store, told of each run archived (its events deleted outside it: forgetStream). */
  store?: Pick<EventStore, 'forgetStream'>;
}

export interface RetentionReport {
  /** False when another instance held the cycle's lock: this one did nothing. */
  ran: boolean;
  outcomes: ArchiveOutcome[];
  /** Runs whose archiving threw (nothing of them was deleted); the next cycle tries again. */
  failed: Array<{ streamId: string; error: string }>;
}

/**
 * One retention cycle: every finished run older than the age (at most `batch`), archived one by one
 * (archiveRun). On Postgres it holds a session advisory lock for the cycle: a second instance finds
 * it taken and skips (`ran: false`); should two still overlap, the archive row's key keeps one
 * archive per run. PGlite is one process (the data directory's lock), so it takes no lock.
 */
export async function runRetentionCycle(
  database: FlexDatabase,
  options: RetentionCycleOptions,
): Promise<RetentionReport> {
  if (database.kind === 'pglite') return archiveFinished(database, options);
  return database.db.connection().execute(async (connection) => {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${RETENTION_LOCK}::bigint) as locked`.execute(connection);
    if (!rows[0].locked) return { ran: false, outcomes: [], failed: [] };
    try {
      return await archiveFinished(database, options);
    } finally {
      await sql`select pg_advisory_unlock(${RETENTION_LOCK}::bigint)`.execute(connection);
    }
  });
}

async function archiveFinished(
  database: FlexDatabase,
  options: RetentionCycleOptions,
): Promise<RetentionReport> {
  const before = new Date(options.now.getTime() - options.settings.ageMs);
  const candidates = await findFinishedRuns(database.db, before, options.settings.batch);
  const report: RetentionReport = { ran: true, outcomes: [], failed: [] };
  for (const { streamId } of candidates) {
    try {
      const outcome = await archiveRun(database.db, streamId, options);
      if (outcome.status === 'archived') options.store?.forgetStream(streamId);
      report.outcomes.push(outcome);
    } catch (error) {
      report.failed.push({ streamId, error: (error as Error).message });
    }
  }
  return report;
}

/** The configured archive store (see archiveTarget), or undefined when none is configured. */
export function archiveStoreFor(runtime: Pick<ServiceRuntime, 'config' | 'mode'>): ArchiveStore | undefined {
  const target = archiveTarget(runtime.config, runtime.mode);
  return target && openArchiveStore(target);
}

export function openArchiveStore(target: ArchiveTarget): ArchiveStore {
  if (target.kind === 'directory') return new DirectoryArchiveStore(target.dir);
  const { kind: _, ...options } = target;
  return new S3ArchiveStore(options);
}

/**
 * Retention as a process's background loop (the gateway's, embedded or distributed): a cycle every
 * FLEX_RETENTION_INTERVAL_MS, the first one an interval after start; off unless FLEX_RETENTION_DAYS or
 * FLEX_RETENTION_AGE_MS is set. A cycle that fails is logged and the next one tries again.
 */
export function startRetention(runtime: ServiceRuntime, hooks: ArchiveHooks): void {
  const settings = retentionSettings(runtime.config);
  const archives = archiveStoreFor(runtime);
  if (!settings) return;
  if (!archives)
    throw new ConfigError([
      'FLEX_ARCHIVE_DIR: retention needs FLEX_ARCHIVE_DIR or FLEX_ARCHIVE_S3_* (a store every gateway shares)',
    ]);
  const logger = runtime.logger.child({ component: 'retention' });
  const signingKey = runtime.config.FLEX_CHAIN_SIGNING_KEY;
  let timer: NodeJS.Timeout | undefined;
  let cycle: Promise<void> | undefined;
  const schedule = () => {
    timer = setTimeout(tick, settings.intervalMs);
    timer.unref();
  };
  const tick = () => {
    cycle = runRetentionCycle(runtime.database, {
      settings,
      archives,
      signingKey,
      hooks,
      now: runtime.clock.now(),
      store: runtime.store,
    })
      .then((report) => logReport(logger, report))
      .catch((error: unknown) => logger.warn('retention cycle failed; the next one tries again', { error }))
      .finally(() => {
        if (timer !== undefined) schedule();
      });
  };
  schedule();
  runtime.onClose(async () => {
    clearTimeout(timer);
    timer = undefined;
    await cycle;
  });
}

function logReport(logger: ServiceRuntime['logger'], report: RetentionReport): void {
  if (!report.ran) return logger.debug('retention: another instance holds the cycle');
  const archived = report.outcomes.filter((o) => o.status === 'archived');
  const skipped = report.outcomes.filter((o) => o.status === 'skipped');
  if (archived.length + skipped.length + report.failed.length === 0) return;
  logger.info('retention cycle', {
    archived: archived.length,
    skipped: skipped.map((o) => ({ streamId: o.streamId, reason: o.reason })),
    failed: report.failed,
  });
}
