import { sql, type Kysely, type Transaction } from 'kysely';
import { ensureCheckpoint, loadCheckpoint, lockCheckpoint, saveCheckpoint } from './checkpoints';
import { InvalidArgumentError, ProjectionFailedError } from './errors';
import type { EventStore } from './event-store';
import type { EventStoreDatabase } from './event-store.table';
import type { StoreLogger } from './logger';
import { Poller } from './poller';
import type { Projection } from './projection';
import { readAllEvents } from './read';
import { Checkpoint, START_CHECKPOINT, StoredEvent } from './types';

export interface ProjectionRunnerOptions {
  /** Events per transaction. Default 500. */
  batchSize?: number;
  /** Poll interval of start(). Default 1000. */
  pollMs?: number;
  logger?: StoreLogger;
  /**
   * A seam for fault injection: called in each batch's transaction once its writes are made and
   * before its checkpoint is saved (the chaos suite kills the process here). Absent in production.
   */
  beforeCheckpoint?: (projection: string, events: number) => Promise<void> | void;
}

/**
 * Keeps projections up to date. Each batch is one transaction: lock the checkpoint row, read the
 * next events gap-safe, apply them, save the checkpoint. A failing apply rolls back the batch's
 * writes with its checkpoint, and instances on the same database never apply a batch twice.
 */
export class ProjectionRunner {
  readonly #db: Kysely<EventStoreDatabase>;
  readonly #store: EventStore;
  readonly #projections: ReadonlyMap<string, Projection>;
  readonly #batchSize: number;
  readonly #logger: StoreLogger;
  readonly #poller: Poller;
  readonly #beforeCheckpoint?: ProjectionRunnerOptions['beforeCheckpoint'];
  /** Whether this instance has made sure every projection has a checkpoint row. */
  #registered = false;
  /** One run at a time per instance: catchUp, rebuild and the poll loop queue here. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    db: Kysely<EventStoreDatabase>,
    store: EventStore,
    projections: readonly Projection[],
    options: ProjectionRunnerOptions = {},
  ) {
    this.#db = db;
    this.#store = store;
    this.#projections = byName(projections);
    this.#batchSize = positiveInteger('batchSize', options.batchSize ?? 500);
    this.#logger = options.logger ?? store.logger;
    this.#beforeCheckpoint = options.beforeCheckpoint;
    this.#poller = new Poller(
      async () => (await this.catchUp(), false),
      positiveInteger('pollMs', options.pollMs ?? 1000),
      (error) => this.#logger.warn('projection catch-up failed; retrying at the next poll', { error }),
    );
  }

  /** Processes every projection until it is caught up. Returns how many events were processed, summed over projections. */
  catchUp(): Promise<number> {
    return this.#exclusive(async () => {
      await this.#register();
      let total = 0;
      const failures: unknown[] = [];
      for (const projection of this.#projections.values()) {
        try {
          for (let n = await this.#batch(projection); n > 0; n = await this.#batch(projection)) total += n;
        } catch (error) {
          failures.push(error);
        }
      }
      if (failures.length > 0) throw failures[0];
      return total;
    });
  }

  /**
   * Catch up until every projection has applied every event at or below `position` (read your
   * writes: the head position once your appends have committed). A plain catchUp stops where the
   * gap-safe tail stops, and any long transaction on the server holds that back, so an event
   * already committed can still be ahead of it: this waits for it, up to `timeoutMs`. Returns
   * whether the projections reached `position`.
   */
  async catchUpThrough(position: number, timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
      await this.catchUp();
      if (await this.#through(position)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Whether no event at or below `position` lies past any projection's checkpoint. */
  async #through(position: number): Promise<boolean> {
    for (const name of this.#projections.keys()) {
      const at = await loadCheckpoint(this.#db, name);
      const behind = await this.#db
        .selectFrom('events')
        .select('position')
        .where('position', '<=', position)
        .where(sql<boolean>`(transaction_id, position) > (${at.transactionId}::xid8, ${at.position}::bigint)`)
        .limit(1)
        .executeTakeFirst();
      if (behind) return false;
    }
    return true;
  }

  /** Empties the projection and replays the whole log into it, in one transaction. Returns the events replayed. */
  rebuild(name: string): Promise<number> {
    const projection = this.#projections.get(name);
    if (!projection) return Promise.reject(new InvalidArgumentError(`no projection named ${name}`));
    return this.#exclusive(() =>
      this.#db.transaction().execute(async (trx) => {
        await lockCheckpoint(trx, name);
        await guard(projection, undefined, () => projection.reset(trx));
        let checkpoint: Checkpoint = START_CHECKPOINT;
        let total = 0;
        for (;;) {
          const batch = await readAllEvents(trx, checkpoint, this.#batchSize);
          if (batch.events.length === 0) break;
          await this.#applyAll(trx, projection, batch.events);
          checkpoint = batch.checkpoint;
          total += batch.events.length;
        }
        await saveCheckpoint(trx, name, checkpoint);
        return total;
      }),
    );
  }

  start(): void {
    this.#poller.start();
  }

  /** Catch up now rather than at the next poll (new events were appended). */
  wake(): void {
    this.#poller.wake();
  }

  stop(): Promise<void> {
    return this.#poller.stop();
  }

  /**
   * A projection's checkpoint row exists from its first poll, not its first batch: the lag gauge
   * reads the checkpoints, and a projection whose first events wait behind a long transaction is
   * lagging too.
   */
  async #register(): Promise<void> {
    if (this.#registered) return;
    for (const name of this.#projections.keys()) await ensureCheckpoint(this.#db, name);
    this.#registered = true;
  }

  async #batch(projection: Projection): Promise<number> {
    // Look without a lock first, so an idle poll takes no row lock and burns no transaction id.
    const peek = await this.#store.readAll(await loadCheckpoint(this.#db, projection.name), 1);
    if (peek.events.length === 0) return 0;
    return this.#db.transaction().execute(async (trx) => {
      const from = await lockCheckpoint(trx, projection.name);
      const batch = await readAllEvents(trx, from, this.#batchSize);
      if (batch.events.length === 0) return 0;
      await this.#applyAll(trx, projection, batch.events);
      await this.#beforeCheckpoint?.(projection.name, batch.events.length);
      await saveCheckpoint(trx, projection.name, batch.checkpoint);
      return batch.events.length;
    });
  }

  async #applyAll(
    trx: Transaction<EventStoreDatabase>,
    projection: Projection,
    events: StoredEvent[],
  ): Promise<void> {
    const handles = projection.handles ? new Set(projection.handles) : undefined;
    for (const event of events) {
      if (handles && !handles.has(event.type)) continue;
      await guard(projection, event.position, () => projection.apply(trx, event));
    }
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

async function guard(
  projection: Projection,
  position: number | undefined,
  fn: () => Promise<void>,
): Promise<void> {
  try {
    await fn();
  } catch (error) {
    throw new ProjectionFailedError(projection.name, position, { cause: error });
  }
}

function byName(projections: readonly Projection[]): ReadonlyMap<string, Projection> {
  const map = new Map<string, Projection>();
  for (const projection of projections) {
    if (map.has(projection.name))
      throw new InvalidArgumentError(`two projections are named ${projection.name}`);
    map.set(projection.name, projection);
  }
  return map;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new InvalidArgumentError(`ProjectionRunner ${name} must be a positive integer, got ${value}`);
  return value;
}
