import type { Results } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/** What the driver needs of PGlite: statements run one at a time, in the order `query` was called. */
export interface OrderedPGlite {
  query<T>(sql: string, params?: readonly unknown[]): Promise<Results<T>>;
  close(): Promise<void>;
}

/**
 * Kysely over PGlite in its worker thread (PGliteWorkerClient), with statements pipelined: one outside
 * a transaction is sent at once, without waiting for those sent before it to come back. The worker
 * runs them in the order sent, so each still runs alone and after everything sent before it; what
 * changes is that the worker has the next statement at hand when one ends, instead of waiting for the
 * main thread to get round to the result and send the next (kysely-pglite-dialect hands its one
 * connection to one caller at a time: the database idled for as long as the services were busy).
 *
 * PGlite is one session, so a transaction holds it from BEGIN to COMMIT or ROLLBACK: statements of
 * other callers, and other transactions, wait meanwhile and are then sent in the order they came.
 * The catch is kysely-pglite-dialect's: code that, inside a transaction, awaits a query on the outer
 * `db` instead of the transaction waits for ever.
 */
export class PipelinedPGliteDialect implements Dialect {
  readonly #pglite: OrderedPGlite;

  constructor(pglite: OrderedPGlite) {
    this.#pglite = pglite;
  }

  createAdapter(): PostgresAdapter {
    return new PostgresAdapter();
  }

  createDriver(): Driver {
    return new PipelinedDriver(this.#pglite);
  }

  createQueryCompiler(): PostgresQueryCompiler {
    return new PostgresQueryCompiler();
  }

  createIntrospector(db: Kysely<unknown>): PostgresIntrospector {
    return new PostgresIntrospector(db);
  }
}

/** Sends what waited for a transaction to end; a transaction's start takes the session. */
type Waiting = () => void;

class PipelinedDriver implements Driver {
  readonly #pglite: OrderedPGlite;
  /** The connection whose transaction holds the session, if any. */
  #holder: Connection | undefined;
  readonly #waiting: Waiting[] = [];

  constructor(pglite: OrderedPGlite) {
    this.#pglite = pglite;
  }

  async init(): Promise<void> {}

  /** A handle, not a session: every handle's statements go to the one session, pipelined. */
  async acquireConnection(): Promise<DatabaseConnection> {
    return new Connection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const holder = connection as Connection;
    if (this.#holder !== undefined)
      await new Promise<void>((taken) => this.#waiting.push(() => this.#take(holder, taken)));
    else this.#holder = holder;
    const begin = settings.isolationLevel
      ? `start transaction isolation level ${settings.isolationLevel}`
      : 'begin';
    try {
      await holder.executeQuery(CompiledQuery.raw(begin));
    } catch (error) {
      this.#release(holder);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as Connection, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection as Connection, 'rollback');
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#release(connection as Connection);
  }

  async destroy(): Promise<void> {
    await this.#pglite.close();
  }

  /** Sent now when no other connection's transaction holds the session; else once none does. */
  query<R>(connection: Connection, query: CompiledQuery): Promise<Results<R>> {
    const send = () => this.#pglite.query<R>(query.sql, query.parameters);
    if (this.#holder === undefined || this.#holder === connection) return send();
    return new Promise((resolve, reject) => this.#waiting.push(() => void send().then(resolve, reject)));
  }

  /** COMMIT or ROLLBACK ends the transaction either way, failing or not: the session is free after. */
  async #end(holder: Connection, statement: 'commit' | 'rollback'): Promise<void> {
    try {
      await holder.executeQuery(CompiledQuery.raw(statement));
    } finally {
      this.#release(holder);
    }
  }

  #take(holder: Connection, taken: () => void): void {
    this.#holder = holder;
    taken();
  }

  /** Sends what waited, in order, up to the next transaction, which takes the session. */
  #release(holder: Connection): void {
    if (this.#holder !== holder) return;
    this.#holder = undefined;
    while (this.#holder === undefined && this.#waiting.length > 0) this.#waiting.shift()?.();
  }
}

class Connection implements DatabaseConnection {
  readonly #driver: PipelinedDriver;

  constructor(driver: PipelinedDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#driver.query<R>(this, query);
    const affected = result.affectedRows ? { numAffectedRows: BigInt(result.affectedRows) } : {};
    return { ...affected, rows: result.rows };
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    if (!Number.isInteger(chunkSize) || chunkSize <= 0)
      throw new Error('chunkSize must be a positive integer');
    const { rows } = await this.executeQuery<R>(query);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) };
  }
}
