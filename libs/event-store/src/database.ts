import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { Pool } from 'pg';
import { DatabaseConfigError } from './errors';
import type { EventStoreDatabase } from './event-store.table';
import { TurnTakingPGlite } from './turn-taking-pglite';

export interface DatabaseConfig {
  /** A Postgres URL: the distributed mode. */
  url?: string;
  /** Without a url: where the embedded PGlite keeps its files; in memory when absent too. */
  dataDir?: string;
  /** pg pool size (Postgres only). Default 10. */
  poolSize?: number;
}

export interface FlexDatabase {
  /**
   * Typed with the store's own tables. Read models and services keep theirs in the same database and
   * add them with `db.withTables<TheirTables>()`: types only, the same connection. (TheirTables must
   * be a type alias, not an interface: withTables wants an index signature.)
   */
  db: Kysely<EventStoreDatabase>;
  kind: 'postgres' | 'pglite';
  /** Ends the pool, or closes PGlite (flushing its files). Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens the database: Postgres through a pg pool when `url` is given, else an embedded PGlite.
 * PGlite is a single connection: kysely-pglite-dialect hands it to one Kysely connection at a time,
 * so concurrent transactions queue instead of interleaving, and each statement starts on a turn of
 * the event loop of its own (TurnTakingPGlite), so HTTP is served between them. The catch: code that,
 * inside a transaction, awaits a query on the outer `db` instead of the transaction waits for ever.
 */
export async function createDatabase(config: DatabaseConfig): Promise<FlexDatabase> {
  if (config.url) return openPostgres(config.url, poolSize(config.poolSize));
  return openPglite(config.dataDir);
}

async function openPostgres(url: string, max: number): Promise<FlexDatabase> {
  const pool = new Pool({ connectionString: url, max });
  // An idle client losing its connection emits 'error' on the pool; unhandled, that kills the process.
  pool.on('error', () => undefined);
  const db = new Kysely<EventStoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, kind: 'postgres', close: once(() => db.destroy()) };
}

async function openPglite(dataDir: string | undefined): Promise<FlexDatabase> {
  if (dataDir !== undefined) {
    if (dataDir.trim() === '') throw new DatabaseConfigError('dataDir must not be empty');
    await mkdir(dataDir, { recursive: true });
  }
  const pglite = new TurnTakingPGlite(dataDir === undefined ? {} : { dataDir: resolve(dataDir) });
  await pglite.waitReady;
  const db = new Kysely<EventStoreDatabase>({ dialect: new PGliteDialect(pglite) });
  return { db, kind: 'pglite', close: once(() => db.destroy()) };
}

function poolSize(value: number | undefined): number {
  const size = value ?? 10;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new DatabaseConfigError(`poolSize must be a positive integer, got ${value}`);
  return size;
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
}
