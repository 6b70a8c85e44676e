import { gunzipSync, gzipSync } from 'node:zlib';
import type { ChainedEvent, ChainHead } from './chain';
import { exportLines, parseExport, type ExportedHead } from './chain-export';
import { verifyChain, type ChainVerdict } from './chain-verify';

/**
 * An archive is a run's export (chain-export.ts: one event per line, the head last), gzipped: what
 * `GET runs/:id/export` sends, so `gunzip -c <archive> | flex verify-export /dev/stdin` checks it.
 */
export function encodeArchive(events: readonly ChainedEvent[], head: ExportedHead): Buffer {
  return gzipSync(`${exportLines(events, head).join('\n')}\n`);
}

/** The archive's events and head; not gzip, or not an export, is an ExportFormatError or a zlib error. */
export function decodeArchive(bytes: Buffer): { events: ChainedEvent[]; head: ExportedHead } {
  return parseExport(gunzipSync(bytes).toString('utf8'));
}

/**
 * The archive checked against the head kept in Postgres (not the one in the file, which whoever
 * edited the file could have rewritten): every hash recomputed, every link, and the end.
 */
export function verifyArchive(bytes: Buffer, kept: ChainHead): ChainVerdict {
  const { events } = decodeArchive(bytes);
  return verifyChain(events, kept);
}

/** The object name of a stream's archive (a plain file name whatever the stream id holds). */
export function archiveName(streamId: string): string {
  return `${encodeURIComponent(streamId)}.ndjson.gz`;
}
