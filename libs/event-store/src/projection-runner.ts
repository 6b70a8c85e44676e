import { sql, type Kysely, type Transaction } from 'kysely';
import {
  ensureCheckpoint,
  loadCheckpoints,
  lockCheckpoint,
  lockCheckpoints,
  saveCheckpoint,
  saveCheckpoints,
} from './checkpoints';
import { InvalidArgumentError, ProjectionFailedError } from './errors';
import type { EventStore } from './event-store';
import type { EventStoreDatabase } from './event-store.table';
import type { StoreLogger } from './logger';
import { Poller } from './poller';
import type { Projection, ProjectionReplay } from './projection';
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
  readonly #projections: ReadonlyMap<string, Projection>;
  readonly #batchSize: number;
  readonly #logger: StoreLogger;
  readonly #poller: Poller;
  readonly #beforeCheckpoint?: ProjectionRunnerOptions['beforeCheckpoint'];
  /** Whether this instance has made sure every projection has a checkpoint row. */
  #registered = false;
  /**
   * Each projection's checkpoint as this instance last saw it stored: never ahead of the stored one
   * (set from a lock or after a commit), so it only serves to group projections and to peek.
   */
  readonly #known = new Map<string, Checkpoint>();
  /** One run at a time per instance: catchUp, rebuild and the poll loop queue here. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    db: Kysely<EventStoreDatabase>,
    store: EventStore,
    projections: readonly Projection[],
    options: ProjectionRunnerOptions = {},
  ) {
    this.#db = db;
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

  /**
   * Processes every projection until it is caught up: until its read comes back short of a batch, so
   * it applied all that read's snapshot let it see (what commits meanwhile is for the next call; a
   * look for it here cost a statement per call, and a small batch, under a steady flow). Returns how
   * many events were processed, summed over projections. Projections standing at one checkpoint move
   * together (one read of each batch, one transaction for all); when that fails, each is tried on its
   * own, so a failing projection holds up no other, and the first failure is thrown once the others
   * are caught up.
   */
  catchUp(): Promise<number> {
    return this.#exclusive(async () => {
      await this.#register();
      let total = 0;
      const failures = new Map<string, unknown>();
      for (let full = true; full;) {
        full = false;
        for (const group of this.#groups(failures)) {
          const moved = await this.#groupOrEach(group, failures);
          total += moved.events;
          full ||= moved.full;
        }
      }
      if (failures.size > 0) throw failures.values().next().value;
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

  /**
   * Whether no event at or below `position` lies past any projection's checkpoint, as this instance
   * last saw it stored (never ahead of it: a stale one only costs another round), one query per
   * distinct checkpoint.
   */
  async #through(position: number): Promise<boolean> {
    const names = [...this.#projections.keys()];
    const distinct = new Map(
      names.map((name) => this.#known.get(name) ?? START_CHECKPOINT).map((at) => [key(at), at]),
    );
    for (const at of distinct.values()) {
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

  /**
   * Empties the projection and replays the whole log into it, in one transaction. Returns the events
   * replayed. Each batch's read is sent as soon as the one before it is back, so the database reads
   * it while the projection folds the one before (the transaction's statements still run one at a
   * time, in the order sent, on its one connection: each read is the same gap-safe read from the
   * previous batch's checkpoint as before, in the same transaction).
   */
  rebuild(name: string): Promise<number> {
    const projection = this.#projections.get(name);
    if (!projection) return Promise.reject(new InvalidArgumentError(`no projection named ${name}`));
    return this.#exclusive(() =>
      this.#db.transaction().execute(async (trx) => {
        await lockCheckpoint(trx, name);
        await guard(projection, undefined, () => projection.reset(trx));
        let checkpoint: Checkpoint = START_CHECKPOINT;
        let total = 0;
        const replay = projection.replay?.(trx);
        const leaveOut = unreadByAll([projection]);
        let next = sentAhead(readAllEvents(trx, checkpoint, this.#batchSize, leaveOut));
        try {
          for (;;) {
            const batch = await next;
            if (batch.events.length === 0) break;
            next = sentAhead(readAllEvents(trx, batch.checkpoint, this.#batchSize, leaveOut));
            if (replay) await this.#replayAll(projection, replay, batch.events);
            else await this.#applyAll(trx, projection, batch.events);
            checkpoint = batch.checkpoint;
            total += batch.events.length;
          }
          if (replay) await guard(projection, undefined, () => replay.finish());
        } catch (error) {
          // What was sent ahead must be over before the rollback: the connection then goes back to the pool.
          await next.catch(() => undefined);
          await replay?.abandon();
          throw error;
        }
        await saveCheckpoint(trx, name, checkpoint);
        this.#known.set(name, checkpoint);
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
    for (const [name, at] of await loadCheckpoints(this.#db, [...this.#projections.keys()]))
      this.#known.set(name, at);
    this.#registered = true;
  }

  /** The projections not failed this round, grouped by the checkpoint they were last known at. */
  #groups(failures: ReadonlyMap<string, unknown>): Projection[][] {
    const groups = new Map<string, Projection[]>();
    for (const projection of this.#projections.values()) {
      if (failures.has(projection.name)) continue;
      const at = key(this.#known.get(projection.name) ?? START_CHECKPOINT);
      groups.set(at, [...(groups.get(at) ?? []), projection]);
    }
    return [...groups.values()];
  }

  async #groupOrEach(group: Projection[], failures: Map<string, unknown>): Promise<Moved> {
    try {
      return await this.#batch(group);
    } catch (error) {
      if (group.length === 1) {
        failures.set(group[0].name, error);
        return { events: 0, full: false };
      }
    }
    const moved = { events: 0, full: false };
    for (const projection of group) {
      const one = await this.#groupOrEach([projection], failures);
      moved.events += one.events;
      moved.full ||= one.full;
    }
    return moved;
  }

  /**
   * One batch for the projections of `group`, in one transaction: lock their checkpoints, read the
   * next events gap-safe from each distinct one (one read when they stand together), apply, save.
   */
  async #batch(group: Projection[]): Promise<Moved> {
    // Read the next batch before the transaction, from the checkpoint this instance last saw: an idle
    // poll then takes no row lock and burns no transaction id, and the read, the largest statement of
    // a batch, does not lengthen the transaction (on PGlite a transaction holds the one session, and
    // every append waits for it). It stands for the read under the lock when the lock finds the same
    // checkpoint: a gap-safe read returns only rows of finished transactions, and whatever commits
    // later sorts after them, so an earlier read from one checkpoint is a prefix of a later one.
    const from = this.#known.get(group[0].name) ?? START_CHECKPOINT;
    // Left out only what the whole group leaves unread: the projections locked at `from` are some of it.
    const ahead = await readAllEvents(this.#db, from, this.#batchSize, unreadByAll(group));
    if (ahead.events.length === 0) return { events: 0, full: false };
    const names = group.map((p) => p.name);
    const saved = await this.#db.transaction().execute(async (trx) => {
      const locked = await lockCheckpoints(trx, names);
      for (const [name, at] of locked) this.#known.set(name, at);
      const saves = new Map<string, Checkpoint>();
      let total = 0;
      let full = false;
      for (const [at, projections] of byCheckpoint(group, locked)) {
        const batch =
          key(at) === key(from)
            ? ahead
            : await readAllEvents(trx, at, this.#batchSize, unreadByAll(projections));
        full ||= batch.events.length === this.#batchSize;
        if (batch.events.length === 0) continue;
        for (const projection of projections) {
          await this.#applyAll(trx, projection, batch.events);
          await this.#beforeCheckpoint?.(projection.name, batch.events.length);
          saves.set(projection.name, batch.checkpoint);
          total += batch.events.length;
        }
      }
      await saveCheckpoints(trx, saves);
      return { saves, total, full };
    });
    for (const [name, at] of saved.saves) this.#known.set(name, at);
    return { events: saved.total, full: saved.full };
  }

  async #applyAll(
    trx: Transaction<EventStoreDatabase>,
    projection: Projection,
    events: StoredEvent[],
  ): Promise<void> {
    const handled = handledBy(projection, events);
    const { applyBatch } = projection;
    if (applyBatch) {
      if (handled.length > 0)
        await guard(projection, handled[0].position, () => applyBatch.call(projection, trx, handled));
      return;
    }
    for (const event of handled) await guard(projection, event.position, () => projection.apply(trx, event));
  }

  async #replayAll(projection: Projection, replay: ProjectionReplay, events: StoredEvent[]): Promise<void> {
    const handled = handledBy(projection, events);
    if (handled.length > 0) await guard(projection, handled[0].position, () => replay.apply(handled));
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}

/** The events of `events` the projection handles (all of them when it names none), in order. */
function handledBy(projection: Projection, events: StoredEvent[]): StoredEvent[] {
  const handles = projection.handles ? new Set(projection.handles) : undefined;
  return handles ? events.filter((event) => handles.has(event.type)) : events;
}

/**
 * The event types whose payload none of `projections` reads: those each declares unread
 * (Projection.unreadPayloads) or does not handle, among those any declares unread.
 */
function unreadByAll(projections: readonly Projection[]): ReadonlySet<string> {
  const reads = (projection: Projection, type: string) =>
    !projection.unreadPayloads?.includes(type) && (!projection.handles || projection.handles.includes(type));
  const declared = projections.flatMap((projection) => projection.unreadPayloads ?? []);
  return new Set(declared.filter((type) => projections.every((projection) => !reads(projection, type))));
}

/**
 * A promise awaited later, marked handled now: when it fails while something else is awaited, its
 * failure is not an unhandled rejection (it still throws where it is awaited). For statements sent
 * ahead in a transaction, here and in projections' replays.
 */
export function sentAhead<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
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

/** The group's projections by the checkpoint they were locked at (usually one). */
function byCheckpoint(
  group: Projection[],
  locked: ReadonlyMap<string, Checkpoint>,
): Map<Checkpoint, Projection[]> {
  const out = new Map<string, { at: Checkpoint; projections: Projection[] }>();
  for (const projection of group) {
    const at = locked.get(projection.name) ?? START_CHECKPOINT;
    const entry = out.get(key(at)) ?? { at, projections: [] };
    entry.projections.push(projection);
    out.set(key(at), entry);
  }
  return new Map([...out.values()].map((e) => [e.at, e.projections]));
}

/** Events a catch-up step applied (summed over projections), and whether a read filled its batch. */
interface Moved {
  events: number;
  full: boolean;
}

function key(at: Checkpoint): string {
  return `${at.transactionId}:${at.position}`;
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
