import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { Pool } from 'pg';
import { DatabaseConfigError } from './errors';
import type { EventStoreDatabase } from './event-store.table';
import { PGliteWorkerClient } from './pglite-worker-client';
import { PipelinedPGliteDialect } from './pipelined-pglite-dialect';
import { TurnTakingPGlite } from './turn-taking-pglite';

export interface DatabaseConfig {
  /** A Postgres URL: the distributed mode. */
  url?: string;
  /** Without a url: where the embedded PGlite keeps its files; in memory when absent too. */
  dataDir?: string;
  /** pg pool size (Postgres only). Default 10. */
  poolSize?: number;
  /**
   * Where PGlite runs: in a worker thread of its own (default), so the database and the services use
   * two cores, or on the calling thread (FLEX_PGLITE_THREAD=main; docs/BENCHMARKS.md compares them).
   */
  pgliteThread?: PGliteThread;
}

export type PGliteThread = 'worker' | 'main';

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
 * PGlite is a single session: a transaction holds it, so concurrent transactions queue instead of
 * interleaving. In its worker thread, statements outside a transaction are pipelined (see
 * PipelinedPGliteDialect); on the main thread, kysely-pglite-dialect hands it to one caller at a time
 * and TurnTakingPGlite yields a turn before each statement, so HTTP is served between them. The catch:
 * code that, inside a transaction, awaits a query on the outer `db` instead of the transaction waits
 * for ever.
 */
export async function createDatabase(config: DatabaseConfig): Promise<FlexDatabase> {
  if (config.url) return openPostgres(config.url, poolSize(config.poolSize));
  return openPglite(config.dataDir, config.pgliteThread ?? 'worker');
}

async function openPostgres(url: string, max: number): Promise<FlexDatabase> {
  // pg's default closes a connection idle for 10 s: between bursts of runs the pool shrank and the
  // next burst dialled again (a new backend, authentication, a cold plan cache: about 0.25 new
  // connections per run in bench/profile-distributed.js). A minute keeps them through a lull; idle
  // ones do not keep a process alive that has nothing else to do.
  const pool = new Pool({ connectionString: url, max, idleTimeoutMillis: 60_000, allowExitOnIdle: true });
  // A client losing its connection emits 'error': an idle one on the pool, a checked-out one (a query
  // or transaction under way, when Postgres restarts) on itself, its queries failing with the error
  // too. Unhandled, either kills the process; the pool drops the broken client, the next query dials.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<EventStoreDatabase>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return { db, kind: 'postgres', close: once(() => db.destroy()) };
}

async function openPglite(dataDir: string | undefined, thread: PGliteThread): Promise<FlexDatabase> {
  if (dataDir !== undefined) {
    if (dataDir.trim() === '') throw new DatabaseConfigError('dataDir must not be empty');
    await mkdir(dataDir, { recursive: true });
  }
  const options = dataDir === undefined ? {} : { dataDir: resolve(dataDir) };
  const dialect =
    thread === 'worker'
      ? new PipelinedPGliteDialect(await startWorker(options))
      : new PGliteDialect(await startInThread(options));
  const db = new Kysely<EventStoreDatabase>({ dialect });
  return { db, kind: 'pglite', close: once(() => db.destroy()) };
}

async function startInThread(options: { dataDir?: string }): Promise<PGlite> {
  const pglite = new TurnTakingPGlite(options);
  await pglite.waitReady;
  return pglite;
}

async function startWorker(options: { dataDir?: string }): Promise<PGliteWorkerClient> {
  const client = new PGliteWorkerClient(options);
  try {
    await client.ready;
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  return client;
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
