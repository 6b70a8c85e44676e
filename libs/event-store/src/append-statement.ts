import { canonicalCopy, upcastPayload } from '@flex/contracts';
import { sql } from 'kysely';
import { AppendItem, checkExpectedVersion } from './append';
import { contentDigest, contentDigestOfCanonical, GENESIS_HASH } from './chain';
import { IdempotencyKeyConflictError, InvalidAppendError } from './errors';
import { Executor, readEventsAt } from './read';
import { toIsoString, toPosition } from './rows';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent, StoredEvent } from './types';

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
  /** The xid8 of the transaction that inserted the row, as text (what a gap-safe read's checkpoint says). */
  xid: string | null;
}

type InsertedRow = StatementRow & {
  position: string | number;
  recorded_at: Date | string;
  xid: string;
};

/** An append's outcome, and for new events the transaction that wrote them (their checkpoints' xid). */
export interface Appended {
  result: AppendResult;
  transactionId?: string;
}

/** The item's events as JSON text (what is sent), and that JSON read back (what readers will get). */
interface Encoded {
  /** Each event's JSON document, one string each: joined once, in the text of the whole statement. */
  docs: string[];
  payloads: unknown[];
  metadata: EventMetadata[];
}

/**
 * One append as one statement (`flex_append`, migration 2026122601_append_steps: PL/pgSQL, which keeps
 * its plans for the session), atomic on its own: it checks the expected version and that the key is
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
): Promise<Appended | 'lost_key_race'> {
  const { streamId, options } = item;
  const key = options.idempotencyKey ?? null;
  const encoded = encode(item);
  const { rows } = await sql<StatementRow>`
    select * from flex_append(${streamId}, ${key}::text, ${versionToCheck(options.expectedVersion)}::int,
      ${item.events.length}::int, ${`[${encoded.docs.join(',')}]`}::jsonb, ${outbox}::boolean, ${GENESIS_HASH})`.execute(
    db,
  );
  return interpret(db, item, encoded, rows);
}

/** One item's rows of flex_append_many: flex_append's, numbered by the item's place (1-based). */
type ManyRow = StatementRow & { item: number };

/**
 * Several appends as one statement (`flex_append_many`, set-based since migration
 * 2026122701_append_many_sets), in one transaction: each is accepted or refused on its own, exactly as
 * appendStatement would one after the other (a refusal writes nothing and is that item's outcome,
 * settled here as rejected). Appends of one stream or key may be in one group (GroupQueue keeps them in
 * order): the function takes them in runs that share neither. A statement that fails (a race on a
 * unique constraint, a duplicate event id) writes nothing at all and throws. One that lost a key race
 * to another writer is retried on its own after the others, with the same outcome.
 */
export async function appendManyStatement(
  db: Executor,
  items: readonly AppendItem[],
  outbox: boolean,
): Promise<Array<PromiseSettledResult<Appended | 'lost_key_race'>>> {
  // An item that cannot be encoded (a payload with no JSON or canonical form) is refused alone, as
  // appendStatement refuses it before its statement: it is left out, and the others go ahead.
  const encoded = items.map((item): Encoded | { error: unknown } => {
    try {
      return encode(item);
    } catch (error) {
      return { error };
    }
  });
  const sent: number[] = [];
  // The group's JSON in pieces, joined once: each event's text is copied once into the statement's.
  const pieces: string[] = ['['];
  items.forEach(({ streamId, options }, i) => {
    const item = encoded[i];
    if ('error' in item) return;
    const expected = versionToCheck(options.expectedVersion);
    const key = JSON.stringify(options.idempotencyKey ?? null);
    pieces.push(
      `${sent.length === 0 ? '' : ','}{"s":${JSON.stringify(streamId)},"k":${key},"e":${expected},"d":[`,
    );
    item.docs.forEach((doc, n) => pieces.push(n === 0 ? doc : `,${doc}`));
    pieces.push(']}');
    sent.push(i);
  });
  pieces.push(']');
  const byItem = items.map((): StatementRow[] => []);
  if (sent.length > 0) {
    const { rows } = await sql<ManyRow>`
      select * from flex_append_many(${pieces.join('')}::jsonb, ${outbox}::boolean, ${GENESIS_HASH})`.execute(
      db,
    );
    for (const row of rows) byItem[sent[row.item - 1]].push(row);
  }
  return Promise.allSettled(
    items.map(async (item, i) => {
      const itemEncoded = encoded[i];
      if ('error' in itemEncoded) throw itemEncoded.error;
      return interpret(db, item, itemEncoded, byItem[i]);
    }),
  );
}

async function interpret(
  db: Executor,
  item: AppendItem,
  encoded: Encoded,
  rows: StatementRow[],
): Promise<Appended | 'lost_key_race'> {
  const [first] = rows;
  if (first.key_stream !== null) return { result: await duplicateOf(db, item, first) };
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
      payload: upcastPayload(event.type, encoded.payloads[i]),
      metadata: encoded.metadata[i],
      timestamp: toIsoString(row.recorded_at),
    };
  });
  const result = { duplicate: false, events, nextVersion: first.head + events.length };
  return { result, transactionId: stored[0]?.xid };
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
  const encoded: Encoded = { docs: [], payloads: [], metadata: [] };
  encoded.docs = item.events.map((event) => {
    const [payload, metadata, content] = jsonOf(item.streamId, event, encoded);
    const at = event.timestamp === undefined ? '' : `,"recorded_at":${JSON.stringify(event.timestamp)}`;
    const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)}`;
    return `${head},"content":"${content}","payload":${payload},"metadata":${metadata}${at}}`;
  });
  return encoded;
}

/**
 * The event's payload and metadata as the JSON text sent, that JSON read back (pushed onto `encoded`),
 * and the event's digest (chain.ts) as stored. A plain payload and metadata are walked once
 * (canonicalCopy): their canonical text is what is sent and what is hashed. Anything else (a Date, a
 * toJSON…) takes the long way: JSON.stringify, JSON.parse, and the digest of what was read back.
 */
function jsonOf(streamId: string, event: NewEvent, encoded: Encoded): [string, string, string] {
  // The id as the uuid column gives it back: lowercase.
  const id = event.id.toLowerCase();
  const [plainPayload, plainMetadata] = [
    canonicalCopy(event.payload ?? null),
    canonicalCopy(event.metadata ?? {}),
  ];
  if (plainPayload !== undefined && plainMetadata !== undefined) {
    const fields = { id, streamId, type: event.type };
    const content = contentDigestOfCanonical(fields, plainPayload.json, plainMetadata.json);
    if (content !== undefined) {
      encoded.payloads.push(plainPayload.copy);
      encoded.metadata.push(plainMetadata.copy as EventMetadata);
      return [plainPayload.json, plainMetadata.json, content];
    }
  }
  const payload = JSON.stringify(event.payload ?? null) ?? 'null';
  const metadata = JSON.stringify(event.metadata ?? {}) ?? '{}';
  encoded.payloads.push(JSON.parse(payload));
  encoded.metadata.push(JSON.parse(metadata) as EventMetadata);
  return [payload, metadata, contentOf(id, streamId, event, encoded)];
}

/** The digest (chain.ts) of the event just encoded, as stored: its JSON read back. */
function contentOf(id: string, streamId: string, event: NewEvent, encoded: Encoded): string {
  const [payload, metadata] = [encoded.payloads.at(-1), encoded.metadata.at(-1)];
  try {
    return contentDigest({ id, type: event.type, streamId, payload, metadata });
  } catch (error) {
    throw new InvalidAppendError(`event ${event.id}: ${(error as Error).message}`, { cause: error });
  }
}
