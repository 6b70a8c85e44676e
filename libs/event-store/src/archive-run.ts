import { runIdFromStreamId } from '@flex/contracts';
import { sql, type Kysely, type Transaction } from 'kysely';
import { archiveName, encodeArchive, verifyArchive } from './archive-format';
import type { ArchiveStore } from './archive-store';
import type { ArchiveDatabase } from './archive.table';
import { chainHead, type ChainedEvent, type ChainHead } from './chain';
import { signHead, type ExportedHead } from './chain-export';
import { readChain } from './chain-read';
import { verifyChain, type ChainFault } from './chain-verify';
import type { EventStoreDatabase } from './event-store.table';

type Trx = Transaction<EventStoreDatabase>;

/** What the read models add to an archive, inside the transaction that deletes the run's events. */
export interface ArchiveHooks {
  /**
   * The run's summary to keep in `run_archives.summary`; undefined when the read models have not
   * applied the run's last event yet (the run then waits for the next cycle).
   */
  summarize(trx: Trx, runId: string, lastPosition: number): Promise<unknown>;
  /** Drops what the read models keep of the run beyond its summary. */
  afterDelete(trx: Trx, runId: string): Promise<void>;
}

export interface ArchiveRunOptions {
  archives: ArchiveStore;
  /** FLEX_CHAIN_SIGNING_KEY: the archive's head and the kept one are signed with it. */
  signingKey?: string;
  hooks?: ArchiveHooks;
}

export type ArchiveOutcome =
  | { status: 'archived'; streamId: string; location: string; events: number; head: ExportedHead }
  | { status: 'skipped'; streamId: string; reason: string };

/** The archive read back did not verify against the stream it was written from: nothing was deleted. */
export class ArchiveVerifyError extends Error {
  override readonly name = 'ArchiveVerifyError';
  readonly code = 'ARCHIVE_NOT_VERIFIED';
  constructor(
    readonly location: string,
    readonly firstBad: ChainFault | undefined,
  ) {
    super(`archive ${location} does not verify against the stored stream: ${describeFault(firstBad)}`);
  }
}

/**
 * Archives one finished run (docs/AUDIT.md § Retention): its chain read and verified, written to
 * the archive store, read back and verified against the stored head (every hash recomputed), and
 * only then, in one transaction, the archive row recorded and the run's events, idempotency keys and
 * sealed secrets deleted (the database refuses an event delete no archive row covers). Killed at any point, it leaves either the
 * events (and maybe an archive, rewritten whole by the next cycle) or the archive row: never
 * neither. Two instances archiving one run: one inserts the row, the other finds it and skips.
 */
export async function archiveRun(
  db: Kysely<EventStoreDatabase>,
  streamId: string,
  options: ArchiveRunOptions,
): Promise<ArchiveOutcome> {
  const skipped = (reason: string): ArchiveOutcome => ({ status: 'skipped', streamId, reason });
  const events = await readChain(db, streamId);
  if (events.length === 0) return skipped('it has no events (archived already?)');
  const head = chainHead(streamId, events);
  const stored = verifyChain(events, head);
  if (!stored.ok) return skipped(`its stored chain is not intact: ${describeFault(stored.firstBad)}`);
  const signed = options.signingKey === undefined ? head : signHead(head, options.signingKey);
  const location = await options.archives.put(archiveName(streamId), encodeArchive(events, signed));
  const readBack = verifyArchive(await options.archives.get(location), head);
  if (!readBack.ok || readBack.events !== events.length)
    throw new ArchiveVerifyError(location, readBack.firstBad);
  const reason = await db
    .transaction()
    .execute((trx) => commitArchive(trx, events, signed, location, options));
  if (reason !== undefined) return skipped(reason);
  return { status: 'archived', streamId, location, events: events.length, head: signed };
}

/** The archive row and the delete, or why the run must wait (undefined when done). */
async function commitArchive(
  trx: Trx,
  events: readonly ChainedEvent[],
  head: ExportedHead,
  location: string,
  options: ArchiveRunOptions,
): Promise<string | undefined> {
  const { streamId } = head;
  const last = events[events.length - 1];
  const runId = runIdFromStreamId(streamId) ?? streamId;
  if (!(await headIs(trx, head))) return 'events were appended to it since it was read';
  const unpublished = await sql<{ n: number }>`
    select count(*)::int as n from outbox o join events e on e.position = o.position
    where e.stream_id = ${streamId}`.execute(trx);
  if (unpublished.rows[0].n > 0) return 'some of its events are not published yet (outbox)';
  const summary = options.hooks ? await options.hooks.summarize(trx, runId, last.position) : {};
  if (summary === undefined) return 'the read models have not applied its last event yet';
  const inserted = await trx
    .withTables<ArchiveDatabase>()
    .insertInto('run_archives')
    .values({
      ...{ stream_id: streamId, run_id: runId, last_version: head.version, head_hash: head.hash },
      ...{ signature: head.signature ? JSON.stringify(head.signature) : null, location },
      ...{ last_position: last.position, event_count: events.length, summary: JSON.stringify(summary) },
      finished_at: last.timestamp,
    })
    .onConflict((oc) => oc.column('stream_id').doNothing())
    .returning('stream_id')
    .executeTakeFirst();
  if (!inserted) return 'another instance archived it';
  const deleted = await trx.deleteFrom('events').where('stream_id', '=', streamId).executeTakeFirst();
  if (Number(deleted.numDeletedRows) !== events.length)
    throw new Error(
      `stream ${streamId}: deleted ${deleted.numDeletedRows} events, archived ${events.length}`,
    );
  await trx.deleteFrom('idempotency_keys').where('stream_id', '=', streamId).execute();
  // Only an invocation of the run's agents reveals its secrets, and an archived run has ended and
  // takes no more events: its sealed values would be kept for nothing.
  await trx.deleteFrom('secrets').where('run_id', '=', runId).execute();
  await options.hooks?.afterDelete(trx, runId);
  return undefined;
}

/** Locks the stream's last event and checks it is still the head that was archived. */
async function headIs(trx: Trx, head: ChainHead): Promise<boolean> {
  const row = await trx
    .selectFrom('events')
    .select(['version', 'hash'])
    .where('stream_id', '=', head.streamId)
    .orderBy('version', 'desc')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined && Number(row.version) === head.version && row.hash === head.hash;
}

export function describeFault(fault: ChainFault | undefined): string {
  if (!fault) return 'the chain does not match';
  return `${fault.problem} at version ${fault.version} (${fault.detail})`;
}
