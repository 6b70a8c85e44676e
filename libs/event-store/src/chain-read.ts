import type { ChainedEvent } from './chain';
import type { Executor } from './read';
import { toIsoString, toPosition } from './rows';

/** A stream's events as the chain covers them (payloads as stored, not upcast), in version order. */
export async function readChain(db: Executor, streamId: string): Promise<ChainedEvent[]> {
  const rows = await db
    .selectFrom('events')
    .select(['position', 'id', 'stream_id', 'version', 'type', 'payload', 'metadata', 'recorded_at'])
    .select(['prev_hash', 'hash'])
    .where('stream_id', '=', streamId)
    .orderBy('version')
    .execute();
  return rows.map((row) => ({
    position: toPosition(row.position),
    id: row.id,
    streamId: row.stream_id,
    version: Number(row.version),
    type: row.type,
    payload: row.payload,
    metadata: row.metadata,
    timestamp: toIsoString(row.recorded_at),
    prev: row.prev_hash,
    hash: row.hash,
  }));
}
