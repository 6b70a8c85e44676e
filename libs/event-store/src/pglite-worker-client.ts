import type { Results } from '@electric-sql/pglite';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** The worker thread that owned PGlite ended before close(): every query after that fails with this. */
export class PGliteWorkerExitedError extends Error {
  readonly code = 'PGLITE_WORKER_EXITED';
  constructor(detail: string, options?: ErrorOptions) {
    super(`the PGlite worker thread ended: ${detail}`, options);
    this.name = 'PGliteWorkerExitedError';
  }
}

interface PlainError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, string | number | boolean | null>;
}

/** How the database started: it existed, or it is new, from the seed or from initdb (pglite-seed.js). */
export type PGliteStart = 'existing' | 'seed' | 'initdb';

type Reply =
  | { ready: true; probe: object; startedFrom: PGliteStart }
  | { ready: false; error: PlainError }
  | { id: number; result: Results<unknown> | null }
  | { id: number; error: PlainError };

type Request = { sql: string; params: unknown[] } | { close: true };

interface Pending {
  resolve(result: Results<unknown> | null): void;
  reject(error: Error): void;
}

/**
 * PGlite in a worker thread of its own (pglite-worker.js), behind the two calls kysely-pglite-dialect
 * makes: `query` and `close`. The database then runs on another core than the services. Statements
 * reach the worker, and run, in the order `query` was called; rows, parameters and errors cross by
 * structured clone (Dates, Uint8Arrays, bigints and parsed json stay what they are; an error comes
 * back as an Error with PGlite's fields: `code`, `detail`, `constraint`…).
 *
 * Each result arrives as a message, on a turn of the event loop of its own, so HTTP is served between
 * statements without TurnTakingPGlite. The worker keeps the process alive only while a query is
 * under way, as PGlite on the main thread did not keep it alive at all.
 */
export class PGliteWorkerClient {
  /** Resolves once PGlite is up in the worker; rejects if it failed to start (close() then ends the thread). */
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly onExit: (error: PGliteWorkerExitedError) => void;
  private nextId = 0;
  private started = false;
  private start: PGliteStart | undefined;
  /** Replies arrive as objects of another realm (see localize); under jest only. */
  private foreign = false;
  private exited: PGliteWorkerExitedError | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: PGliteWorkerOptions = {}) {
    const { onExit = crash, ...workerData } = options;
    this.onExit = onExit;
    this.worker = new Worker(join(__dirname, 'pglite-worker.js'), { workerData });
    // Starting counts as a query under way (id -1): the worker keeps the process alive till it is up.
    this.ready = new Promise<void>((resolve, reject) =>
      this.pending.set(-1, { resolve: () => resolve(), reject }),
    );
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error) =>
      this.fail(new PGliteWorkerExitedError(error.message, { cause: error })),
    );
    this.worker.on('exit', (code) => this.fail(new PGliteWorkerExitedError(`exit code ${code}`)));
  }

  /** How the database started (pglite-seed.js); undefined until ready. */
  get startedFrom(): PGliteStart | undefined {
    return this.start;
  }

  query<T>(sql: string, params: readonly unknown[] = []): Promise<Results<T>> {
    return this.send({ sql, params: params.map(ownBytes) }) as Promise<Results<T>>;
  }

  /** Closes PGlite in the worker (flushing its files to dataDir), then ends the worker. */
  close(): Promise<void> {
    return (this.closing ??= this.closeWorker());
  }

  private async closeWorker(): Promise<void> {
    const started = await this.ready.then(
      () => true,
      () => false,
    );
    try {
      if (started && !this.exited) await this.send({ close: true });
    } finally {
      await this.worker.terminate();
    }
  }

  private send(message: Request): Promise<Results<unknown> | null> {
    if (this.closing && !('close' in message))
      return Promise.reject(new Error('the PGlite database is closed'));
    if (this.exited) return Promise.reject(this.exited);
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id });
    });
  }

  private settle(reply: Reply): void {
    const id = 'id' in reply ? reply.id : -1;
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in reply) return waiting.reject(toError(reply.error));
    if ('probe' in reply) {
      this.started = true;
      this.start = reply.startedFrom;
      this.foreign = Object.getPrototypeOf(reply.probe) !== Object.prototype;
    }
    const result = 'result' in reply ? reply.result : null;
    waiting.resolve(this.foreign ? (localize(result) as Results<unknown> | null) : result);
  }

  private fail(error: PGliteWorkerExitedError): void {
    if (this.exited) return;
    this.exited = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    if (this.started && !this.closing) this.onExit(error);
  }
}

export interface PGliteWorkerOptions {
  /** Where PGlite keeps its files; in memory when absent. */
  dataDir?: string;
  /**
   * Where the seed of a new database is kept (pglite-seed.js): by default node_modules/.cache/flex;
   * null: none, every new database runs initdb.
   */
  seedDir?: string | null;
  /**
   * Called when the thread ends after it started and before close(). By default it throws the error,
   * uncaught: the process stops with it rather than run on without its database.
   */
  onExit?: (error: PGliteWorkerExitedError) => void;
}

function crash(error: PGliteWorkerExitedError): void {
  process.nextTick(() => {
    throw error;
  });
}

function toError(plain: PlainError): Error {
  const error = Object.assign(new Error(plain.message), plain.fields);
  error.name = plain.name;
  if (plain.stack) error.stack = plain.stack;
  return error;
}

/**
 * The value rebuilt of this realm's objects. A message is deserialized in Node's main context; jest
 * runs each spec file in a vm context of its own, where an object from the main context is not
 * `instanceof Object` nor has `Object.prototype` (canonical JSON refuses it as not plain), and a Date
 * is not `instanceof Date`. Never needed outside such a sandbox, so never run there.
 */
function localize(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return Array.from(value, localize);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (Object.prototype.toString.call(value) === '[object Date]') return new Date((value as Date).getTime());
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, localize(item)]));
}

/**
 * A Buffer from Node's pool views a shared 8 KiB ArrayBuffer that a structured clone would copy whole:
 * send the bytes of the view only.
 */
function ownBytes(value: unknown): unknown {
  return value instanceof Uint8Array && value.byteLength !== value.buffer.byteLength
    ? new Uint8Array(value)
    : value;
}
