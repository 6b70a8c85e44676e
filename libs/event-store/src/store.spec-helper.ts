import { createTestDatabase } from '@flex/testing';
import type { Migration } from 'kysely';
import { randomUUID } from 'node:crypto';
import { createDatabase, FlexDatabase } from './database';
import { migrateToLatest } from './migrate';
import type { StoreLogger } from './logger';
import type { EventStore } from './event-store';
import type { Checkpoint, NewEvent, StoredEvent } from './types';

/** A migrated database on one backend, plus what it takes to open more connections to it. */
export interface TestStore {
  database: FlexDatabase;
  /** Another pool on the same database (Postgres only; PGlite has one connection). */
  connect?: () => Promise<FlexDatabase>;
  /** The database's URL (Postgres only). */
  url?: string;
  close(): Promise<void>;
}

export interface Backend {
  kind: 'postgres' | 'pglite';
  open(label: string, extra?: Record<string, Migration>): Promise<TestStore>;
}

export const postgresBackend: Backend = {
  kind: 'postgres',
  async open(label, extra) {
    const testDb = await createTestDatabase(label);
    const opened: FlexDatabase[] = [];
    const connect = async () => {
      const database = await createDatabase({ url: testDb.url, poolSize: 10 });
      opened.push(database);
      return database;
    };
    const database = await connect();
    await migrateToLatest(database.db, extra);
    return {
      database,
      connect,
      url: testDb.url,
      close: async () => {
        await Promise.all(opened.map((db) => db.close()));
        await testDb.drop();
      },
    };
  },
};

export const pgliteBackend: Backend = {
  kind: 'pglite',
  async open(_label, extra) {
    const database = await createDatabase({});
    await migrateToLatest(database.db, extra);
    return { database, close: () => database.close() };
  },
};

export const backends: readonly Backend[] = [postgresBackend, pgliteBackend];

export function newEvent(type = 'thing_happened', payload: unknown = { n: 1 }, timestamp?: string): NewEvent {
  return {
    id: randomUUID(),
    type,
    payload,
    metadata: { correlationId: 'corr-1', producer: 'spec' },
    timestamp,
  };
}

export function uniqueStream(prefix = 'run'): string {
  return `${prefix}-${randomUUID()}`;
}

/** Polls until the condition holds (never a fixed sleep). */
export async function waitFor(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export function capturingLogger(): StoreLogger & {
  warnings: Array<{ msg: string; data?: Record<string, unknown> }>;
} {
  const warnings: Array<{ msg: string; data?: Record<string, unknown> }> = [];
  return {
    warnings,
    warn: (msg, data) => warnings.push({ msg, data }),
    error: (msg, data) => warnings.push({ msg, data }),
  };
}

/** Every event readAll gives after `from`, page after page until an empty one, and the checkpoint reached. */
export async function tailAll(
  store: EventStore,
  from: Checkpoint,
  pageSize = 100,
): Promise<{ events: StoredEvent[]; checkpoint: Checkpoint }> {
  const events: StoredEvent[] = [];
  let checkpoint = from;
  for (;;) {
    const page = await store.readAll(checkpoint, pageSize);
    if (page.events.length === 0) return { events, checkpoint };
    events.push(...page.events);
    checkpoint = page.checkpoint;
  }
}
