import { createHash } from 'node:crypto';
import { contentHash } from '@flex/contracts';

/**
 * The tamper-evidence chain (docs/AUDIT.md). Every event carries the hash of its predecessor in its
 * stream (`prev`; the first one {@link GENESIS_HASH}) and its own `hash`:
 *
 *   content = SHA-256(JCS({ id, metadata, payload, streamId, type }))          computed by the writer
 *   hash    = SHA-256(JCS({ content, position, prev, timestamp, version }))    computed in the append
 *
 * JCS is RFC 8785 canonical JSON. The second object holds only hex strings, an ISO timestamp and
 * integers, so the append statement builds its canonical form as text and hashes it with `sha256()`
 * in the same statement that takes the position, the version and the predecessor's hash.
 */

/** `prev` of a stream's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** An event as the chain covers it: the payload as stored (not upcast), and its two links. */
export interface ChainedEvent {
  position: number;
  id: string;
  streamId: string;
  version: number;
  type: string;
  payload: unknown;
  metadata: unknown;
  /** Millisecond ISO-8601 UTC: the store keeps recorded times to the millisecond. */
  timestamp: string;
  /** The hash of the event before it in its stream; null on a row the append path did not write. */
  prev: string | null;
  hash: string | null;
}

/** Where a stream's chain ends: what an export closes with, and what a signature covers. */
export interface ChainHead {
  streamId: string;
  /** Events in the stream (the last one's version); 0 for an empty stream. */
  version: number;
  /** The last event's hash ({@link GENESIS_HASH} for an empty stream). */
  hash: string;
}

/** What the writer hashes: every field of the event it chooses (the rest is assigned by the store). */
export function contentDigest(
  event: Pick<ChainedEvent, 'id' | 'streamId' | 'type' | 'payload' | 'metadata'>,
) {
  const { id, streamId, type, payload, metadata } = event;
  return contentHash({ id, metadata, payload, streamId, type });
}

/**
 * {@link contentDigest}, given the canonical JSON of the payload and of the metadata (canonicalCopy in
 * @flex/contracts): the same digest, with no second walk of them. The other fields are strings, whose
 * canonical form is their JSON text unless they hold a lone surrogate: then undefined, and the caller
 * takes contentDigest, which refuses them.
 */
export function contentDigestOfCanonical(
  event: Pick<ChainedEvent, 'id' | 'streamId' | 'type'>,
  payloadJson: string,
  metadataJson: string,
): string | undefined {
  const { id, streamId, type } = event;
  if (!id.isWellFormed() || !streamId.isWellFormed() || !type.isWellFormed()) return undefined;
  // Keys in RFC 8785 order, as contentDigest's object is serialized.
  const text = `{"id":${JSON.stringify(id)},"metadata":${metadataJson},"payload":${payloadJson},"streamId":${JSON.stringify(streamId)},"type":${JSON.stringify(type)}}`;
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The hash an event should carry, given its fields and its `prev`. */
export function chainHash(event: Omit<ChainedEvent, 'hash' | 'prev'> & { prev: string }): string {
  const { position, prev, timestamp, version } = event;
  return contentHash({ content: contentDigest(event), position, prev, timestamp, version });
}

/** The head of a chain read in version order. */
export function chainHead(streamId: string, events: readonly ChainedEvent[]): ChainHead {
  const last = events[events.length - 1];
  return { streamId, version: last?.version ?? 0, hash: last?.hash ?? GENESIS_HASH };
}
