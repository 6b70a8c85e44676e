import { upcastPayload } from '@flex/contracts';
import { sql } from 'kysely';
import { AppendItem, checkExpectedVersion } from './append';
import { IdempotencyKeyConflictError } from './errors';
import { Executor, readEventsAt } from './read';
import { toIsoString, toPosition } from './rows';
import type { AppendResult, ExpectedVersion, StoredEvent } from './types';

/** What one append statement came back with. */
interface StatementRow {
  /** The stream's version as the statement found it. */
  head: number;
  /** The idempotency key's record, when the key was already used. */
  key_stream: string | null;
  key_positions: Array<string | number> | null;
  /** The expected version held and the key was unused: the events were to be written. */
  accepted: boolean;
  /** The key's row was written by this statement (false too when there is no key). */
  claimed: boolean;
  /** One row per inserted event (none inserted: one row with these null). */
  position: string | number | null;
  recorded_at: Date | string | null;
}

type InsertedRow = StatementRow & { position: string | number; recorded_at: Date | string };

/** The item's events as JSON text: what is sent, and what the stored events are built from. */
interface Encoded {
  docs: string;
  payloads: string[];
  metadata: string[];
}

/**
 * One append as one statement, atomic on its own: it checks the expected version and that the key is
 * unused, and only then takes positions, records the key with them, inserts the events numbered after
 * the stream's version and their outbox rows. Refused, it writes nothing and says why.
 *
 * The key's row is written before any event row (the events wait on its RETURNING), so a writer racing
 * for the same key waits on the key until the other commits, then writes nothing: `'lost_key_race'`,
 * and a second try finds the key used. A writer racing on the same stream fails on
 * events_stream_version_unique instead (the caller retries, and the retry sees the new version).
 */
export async function appendStatement(
  db: Executor,
  item: AppendItem,
  outbox: boolean,
): Promise<AppendResult | 'lost_key_race'> {
  const { streamId, options } = item;
  const key = options.idempotencyKey ?? null;
  const encoded = encode(item);
  const { rows } = await sql<StatementRow>`
    with head as (
      select coalesce(max(version), 0)::int as version from events where stream_id = ${streamId}
    ),
    prior as (
      select stream_id, positions from idempotency_keys where key = ${key}::text
    ),
    accepted as (
      select version from head
      where not exists (select from prior)
        and (${versionToCheck(options.expectedVersion)}::int is null
          or version = ${versionToCheck(options.expectedVersion)}::int)
    ),
    allocated as (
      select (row_number() over (order by position))::int as ord, position
      from (
        select nextval('events_position_seq') as position
        from accepted, generate_series(1, ${item.events.length}::int)
      ) fresh
    ),
    claimed as (
      insert into idempotency_keys (key, stream_id, positions)
      select ${key}::text, ${streamId}, coalesce((select array_agg(position order by ord) from allocated), '{}')
      from accepted where ${key}::text is not null
      on conflict (key) do nothing
      returning key
    ),
    inserted as (
      insert into events (position, id, stream_id, version, type, payload, metadata, recorded_at)
      select a.position, (e.doc->>'id')::uuid, ${streamId}, h.version + a.ord, e.doc->>'type',
        e.doc->'payload', e.doc->'metadata', coalesce((e.doc->>'recorded_at')::timestamptz, now())
      from accepted h
      join allocated a on true
      join jsonb_array_elements(${encoded.docs}::jsonb) with ordinality as e(doc, ord) on e.ord = a.ord
      where ${key}::text is null or exists (select from claimed)
      returning position, version, recorded_at
    ),
    outboxed as (
      insert into outbox (position) select position from inserted where ${outbox}::boolean
    )
    select h.version as head, p.stream_id as key_stream, p.positions as key_positions,
      exists (select from accepted) as accepted, exists (select from claimed) as claimed,
      i.position, i.recorded_at
    from head h
    left join prior p on true
    left join inserted i on true
    order by i.version`.execute(db);
  return interpret(db, item, encoded, rows);
}

async function interpret(
  db: Executor,
  item: AppendItem,
  encoded: Encoded,
  rows: StatementRow[],
): Promise<AppendResult | 'lost_key_race'> {
  const [first] = rows;
  if (first.key_stream !== null) return duplicateOf(db, item, first);
  if (!first.accepted) {
    checkExpectedVersion(item.streamId, item.options.expectedVersion, first.head);
    throw new Error(`append to ${item.streamId}: refused at version ${first.head} for no known reason`);
  }
  if (item.options.idempotencyKey !== undefined && !first.claimed) return 'lost_key_race';
  const stored = rows.filter((row): row is InsertedRow => row.position !== null);
  if (stored.length !== item.events.length) {
    throw new Error(`append to ${item.streamId}: ${stored.length} of ${item.events.length} events stored`);
  }
  const events = stored.map((row, i): StoredEvent => {
    const event = item.events[i];
    return {
      position: toPosition(row.position),
      id: event.id,
      streamId: item.streamId,
      version: first.head + i + 1,
      type: event.type,
      // From the JSON sent, not the object given: what a reader gets (no undefined, no Date), unshared.
      payload: upcastPayload(event.type, JSON.parse(encoded.payloads[i])),
      metadata: JSON.parse(encoded.metadata[i]),
      timestamp: toIsoString(row.recorded_at),
    };
  });
  return { duplicate: false, events, nextVersion: first.head + events.length };
}

async function duplicateOf(db: Executor, item: AppendItem, row: StatementRow): Promise<AppendResult> {
  const key = item.options.idempotencyKey ?? '';
  if (row.key_stream !== item.streamId)
    throw new IdempotencyKeyConflictError(key, `${row.key_stream}`, item.streamId);
  const events = await readEventsAt(db, (row.key_positions ?? []).map(toPosition));
  return { duplicate: true, events, nextVersion: row.head };
}

/** The version the stream must be at: null for 'any'. */
function versionToCheck(expected: ExpectedVersion): number | null {
  if (expected === 'any') return null;
  return expected === 'no_stream' ? 0 : expected;
}

function encode(item: AppendItem): Encoded {
  const payloads = item.events.map((event) => JSON.stringify(event.payload ?? null) ?? 'null');
  const metadata = item.events.map((event) => JSON.stringify(event.metadata ?? {}) ?? '{}');
  const docs = item.events.map((event, i) => {
    const at = event.timestamp === undefined ? '' : `,"recorded_at":${JSON.stringify(event.timestamp)}`;
    const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)}`;
    return `${head},"payload":${payloads[i]},"metadata":${metadata[i]}${at}}`;
  });
  return { docs: `[${docs.join(',')}]`, payloads, metadata };
}
