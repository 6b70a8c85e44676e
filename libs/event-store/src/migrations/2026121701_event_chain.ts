import { Kysely, sql } from 'kysely';
import { chainHash, GENESIS_HASH } from '../chain';
import { toIsoString, toPosition } from '../rows';

const PAGE = 1_000;

interface Row {
  position: string | number;
  id: string;
  stream_id: string;
  version: number;
  type: string;
  payload: unknown;
  metadata: unknown;
  recorded_at: Date | string;
}

/**
 * The tamper-evidence chain (docs/AUDIT.md): `prev_hash` and `hash` on every event. Events stored
 * before it are chained here, stream by stream in version order, exactly as the append path chains
 * new ones, so every stream is one chain from its first event. Recorded times are cut to the
 * millisecond first (readers never saw more; the hash covers the time as they see it). The
 * append-only trigger is off for this one rewrite, inside the migration's transaction.
 * The columns stay nullable: a row without links was not written by the append path, and
 * `flex verify` says so (inserted) instead of the insert failing unnoticed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table events add column prev_hash text, add column hash text`.execute(db);
  await sql`alter table events disable trigger events_append_only`.execute(db);
  await sql`update events set recorded_at = date_trunc('milliseconds', recorded_at)`.execute(db);
  let after: { stream: string; version: number; hash: string } | undefined;
  for (;;) {
    const rows = await page(db, after);
    if (rows.length === 0) break;
    const links = rows.map((row) => {
      const prev = after?.stream === row.stream_id ? after.hash : GENESIS_HASH;
      const hash = chainHash({
        ...{ id: row.id, streamId: row.stream_id, type: row.type, payload: row.payload },
        ...{ metadata: row.metadata, position: toPosition(row.position), prev },
        ...{ version: Number(row.version), timestamp: toIsoString(row.recorded_at) },
      });
      after = { stream: row.stream_id, version: Number(row.version), hash };
      return { position: toPosition(row.position), prev, hash };
    });
    await sql`
      update events e set prev_hash = l.prev, hash = l.hash
      from jsonb_to_recordset(${JSON.stringify(links)}::jsonb) as l(position bigint, prev text, hash text)
      where e.position = l.position`.execute(db);
  }
  await sql`alter table events enable trigger events_append_only`.execute(db);
}

async function page(db: Kysely<unknown>, after?: { stream: string; version: number }): Promise<Row[]> {
  const { rows } = await sql<Row>`
    select position, id, stream_id, version, type, payload, metadata, recorded_at from events
    where ${after === undefined}::boolean
      or (stream_id, version) > (${after?.stream ?? ''}::text, ${after?.version ?? 0}::int)
    order by stream_id, version limit ${PAGE}`.execute(db);
  return rows;
}
