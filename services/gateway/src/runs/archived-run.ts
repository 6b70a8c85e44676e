import type { RunArchive } from '@flex/contracts';
import {
  ArchiveUnavailableError,
  findArchive,
  readArchivedChain,
  storedEvents,
  type ArchiveRecord,
  type ChainedEvent,
} from '@flex/event-store';
import { archiveStoreFor, type ServiceRuntime } from '@flex/runtime';
import type { Response } from 'express';
import { apiError } from '../http/api-error';
import { sseFrame } from './event-frame';
import { openSse } from './run-stream';
import { isInternalType } from './stream-end';

/**
 * Archived runs (docs/AUDIT.md § Retention): their events are in an archive, Postgres keeps the
 * archive row (location, chain head) and the read models a summary.
 */
export function findRunArchive(
  runtime: ServiceRuntime,
  streamId: string,
): Promise<ArchiveRecord | undefined> {
  return findArchive(runtime.database.db, streamId);
}

/** What `GET runs/:id` and `GET runs/:id/verify` say of an archived run. */
export function archiveView(record: ArchiveRecord): RunArchive {
  const { location, archivedAt, finishedAt, events, head } = record;
  return { location, archivedAt, finishedAt, events, head };
}

/** Who started an archived run, from its summary (the runs row it had). */
export function archivedOwner(record: ArchiveRecord): string | undefined {
  const summary = record.summary as { runs?: { owner?: unknown } } | null;
  const owner = summary?.runs?.owner;
  return typeof owner === 'string' ? owner : undefined;
}

/**
 * The archived run's events as its archive holds them (unchecked: verify them against the head kept
 * in Postgres). No archive store configured, or the archive unreachable: 503 `archive_unavailable`.
 * An archive that is not an export (not gzip, a bad line): `{ unreadable }`, for verify to report.
 */
export async function archivedChain(
  runtime: ServiceRuntime,
  record: ArchiveRecord,
): Promise<{ events: ChainedEvent[] } | { events: undefined; unreadable: string }> {
  const archives = archiveStoreFor(runtime);
  const details = { runId: record.runId, location: record.location };
  if (!archives)
    throw apiError(
      503,
      'archive_unavailable',
      'the run is archived and no archive store is configured',
      details,
    );
  try {
    return { events: await readArchivedChain(archives, record) };
  } catch (error) {
    if (error instanceof ArchiveUnavailableError)
      throw apiError(
        503,
        'archive_unavailable',
        `the run's archive cannot be read: ${error.message}`,
        details,
      );
    return {
      events: undefined,
      unreadable: `archive ${record.location} is not a readable export: ${(error as Error).message}`,
    };
  }
}

/**
 * `GET runs/:id/events` of an archived run: its archived events after `after` as SSE frames (not the
 * internal ones, as for a stored run), then the
 * end (nothing more will come). An archive that is not an export is a 500 `archive_unreadable`.
 */
export async function streamArchivedRun(
  runtime: ServiceRuntime,
  record: ArchiveRecord,
  after: number,
  res: Response,
): Promise<void> {
  const read = await archivedChain(runtime, record);
  if (read.events === undefined)
    throw apiError(500, 'archive_unreadable', read.unreadable, {
      runId: record.runId,
      location: record.location,
    });
  openSse(res);
  for (const event of storedEvents(read.events))
    if (event.position > after && !isInternalType(event.type)) res.write(sseFrame(event));
  res.end();
}
