import {
  createDatabase,
  EventStore,
  migrateToLatest,
  type ChainedEvent,
  type FlexDatabase,
  type NewEvent,
} from '@flex/event-store';
import { createTestDatabase } from '@flex/testing';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A migrated database on one backend, a store on it, a fresh archive directory. */
export interface RetentionFixture {
  database: FlexDatabase;
  store: EventStore;
  dir: string;
  /** Another pool on the same database: a second instance (Postgres only). */
  connect?: () => Promise<FlexDatabase>;
  close(): Promise<void>;
}

export const BACKENDS = ['postgres', 'pglite'] as const;

export async function openFixture(kind: (typeof BACKENDS)[number], label: string): Promise<RetentionFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'flex-archive-'));
  const opened: FlexDatabase[] = [];
  let drop: () => Promise<void> = async () => undefined;
  let connect: (() => Promise<FlexDatabase>) | undefined;
  if (kind === 'postgres') {
    const testDb = await createTestDatabase(label);
    drop = testDb.drop;
    connect = async () => {
      const database = await createDatabase({ url: testDb.url, poolSize: 4 });
      opened.push(database);
      return database;
    };
  }
  const database = connect ? await connect() : await createDatabase({});
  if (!connect) opened.push(database);
  await migrateToLatest(database.db);
  return {
    // On PGlite the store is its database's sole writer, as the runtime makes it: it remembers what it
    // appended, and archiving must make it forget.
    ...{ database, store: new EventStore(database.db, { soleWriter: kind === 'pglite' }), dir, connect },
    close: async () => {
      await Promise.all(opened.map((db) => db.close()));
      await drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const DAY = 86_400_000;
export const NOW = new Date('2026-06-01T00:00:00.000Z');

export interface RunShape {
  /** How long before NOW its last event was recorded. */
  ageMs: number;
  /** The terminal event it ends with; none: still open. */
  ending?: 'complete' | 'run_failed' | 'run_cancelled';
  /** Events before the ending. */
  steps: number;
}

/** A run's stream as the store would hold it (shapes only: retention reads types and times). */
export async function appendRun(store: EventStore, shape: RunShape): Promise<string> {
  const streamId = `run-${randomUUID()}`;
  const last = NOW.getTime() - shape.ageMs;
  const types = ['start', ...Array.from({ length: shape.steps }, () => 'node_complete')];
  if (shape.ending) types.push(shape.ending);
  const events: NewEvent[] = types.map((type, i) => ({
    id: randomUUID(),
    type,
    payload: { step: i, note: `event ${i} of ${streamId}` },
    metadata: { correlationId: streamId, producer: 'spec' },
    timestamp: new Date(last - (types.length - 1 - i) * 1_000).toISOString(),
  }));
  await store.append(streamId, events, { expectedVersion: 'no_stream' });
  return streamId;
}

/** Every stored event, by stream: what retention must never lose. */
export async function storedChains(store: EventStore, streams: readonly string[]) {
  const chains = new Map<string, ChainedEvent[]>();
  for (const streamId of streams) chains.set(streamId, await store.readChain(streamId));
  return chains;
}

export async function eventCount(database: FlexDatabase): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from events`.execute(database.db);
  return rows[0].n;
}

export async function archiveRows(database: FlexDatabase): Promise<Array<{ stream_id: string }>> {
  const { rows } = await sql<{ stream_id: string }>`select stream_id from run_archives`.execute(database.db);
  return rows;
}
