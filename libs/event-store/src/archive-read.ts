import { TERMINAL_EVENT_TYPES, upcastPayload } from '@flex/contracts';
import { sql, type Kysely } from 'kysely';
import { decodeArchive } from './archive-format';
import type { ArchiveStore } from './archive-store';
import type { ArchiveDatabase } from './archive.table';
import type { ChainedEvent } from './chain';
import type { ExportedHead } from './chain-export';
import type { EventStoreDatabase } from './event-store.table';
import { toIsoString, toPosition } from './rows';
import type { EventMetadata, StoredEvent } from './types';

/** What Postgres keeps of an archived run: where its events are, and the head they must end at. */
export interface ArchiveRecord {
  streamId: string;
  runId: string;
  /** The chain head kept in Postgres, signed when FLEX_CHAIN_SIGNING_KEY was set at archiving. */
  head: ExportedHead;
  lastPosition: number;
  events: number;
  location: string;
  summary: unknown;
  finishedAt: string;
  archivedAt: string;
}

/** The stream's archive row, when it was archived. */
export async function findArchive(
  db: Kysely<EventStoreDatabase>,
  streamId: string,
): Promise<ArchiveRecord | undefined> {
  const row = await db
    .withTables<ArchiveDatabase>()
    .selectFrom('run_archives')
    .selectAll()
    .where('stream_id', '=', streamId)
    .executeTakeFirst();
  if (!row) return undefined;
  const head = { streamId: row.stream_id, version: row.last_version, hash: row.head_hash };
  return {
    ...{ streamId: row.stream_id, runId: row.run_id, events: row.event_count, location: row.location },
    head: row.signature ? { ...head, signature: row.signature } : head,
    lastPosition: toPosition(row.last_position),
    summary: row.summary,
    finishedAt: toIsoString(row.finished_at),
    archivedAt: toIsoString(row.archived_at),
  };
}

/**
 * An archived run's events as the archive holds them, unchecked: verify them against
 * `record.head` (verifyChain). An unreadable archive is an ArchiveUnavailableError, one that is not
 * gzip or not an export an ExportFormatError (or zlib's error).
 */
export async function readArchivedChain(
  archives: ArchiveStore,
  record: ArchiveRecord,
): Promise<ChainedEvent[]> {
  return decodeArchive(await archives.get(record.location)).events;
}

/**
 * Run streams that have ended (a terminal event) and whose last event is older than `before`,
 * oldest first. One scan of the events table: retention keeps it small.
 */
export async function findFinishedRuns(
  db: Kysely<EventStoreDatabase>,
  before: Date,
  limit: number,
): Promise<Array<{ streamId: string; finishedAt: string }>> {
  const cutoff = before.toISOString();
  const { rows } = await sql<{ stream_id: string; finished_at: Date | string }>`
    select stream_id, max(recorded_at) as finished_at from events
    where stream_id in (
      select stream_id from events
      where type in (${sql.join(TERMINAL_EVENT_TYPES)}) and recorded_at < ${cutoff}::timestamptz
    )
    group by stream_id
    having max(recorded_at) < ${cutoff}::timestamptz
    order by finished_at, stream_id
    limit ${limit}`.execute(db);
  return rows.map((row) => ({ streamId: row.stream_id, finishedAt: toIsoString(row.finished_at) }));
}

/** Archived events as readers of the store get them: payloads upcast, no chain links. */
export function storedEvents(chain: readonly ChainedEvent[]): StoredEvent[] {
  return chain.map(({ prev: _p, hash: _h, ...event }) => ({
    ...event,
    payload: upcastPayload(event.type, event.payload),
    metadata: event.metadata as EventMetadata,
  }));
}
