import type { ColumnType } from 'kysely';
import type { HeadSignature } from './chain-export';

/** One archived run (migration 2026122001_run_archives): written once, in the delete's transaction. */
export interface RunArchivesTable {
  stream_id: ColumnType<string, string, never>;
  run_id: ColumnType<string, string, never>;
  /** The chain head the archive must verify against: its last version and hash. */
  last_version: ColumnType<number, number, never>;
  head_hash: ColumnType<string, string, never>;
  signature: ColumnType<HeadSignature | null, string | null, never>;
  last_position: ColumnType<string | number, number, never>;
  event_count: ColumnType<number, number, never>;
  location: ColumnType<string, string, never>;
  /** What the read models showed of the run when it was archived (restored on a rebuild). */
  summary: ColumnType<unknown, string, never>;
  finished_at: ColumnType<Date, string, never>;
  archived_at: ColumnType<Date, string | undefined, never>;
}

/** Added to the store's Kysely with `db.withTables<ArchiveDatabase>()` (types only). */
export type ArchiveDatabase = { run_archives: RunArchivesTable };
