import type { AppendItem } from './append';
import { appendManyStatement, appendStatement, type Appended } from './append-statement';
import { ConcurrencyConflictError, DuplicateEventIdError, EventStoreError } from './errors';
import type { Executor } from './read';
import { Group, GroupQueue } from './group-queue';
import {
  DEADLOCK_DETECTED,
  SERIALIZATION_FAILURE,
  sqlState,
  UNIQUE_VIOLATION,
  wroteNothing,
} from './sql-state';
import type { AppendResult, Checkpoint, StoredEvent } from './types';

/** The new events of a committed group in commit order, each with the checkpoint right after it. */
export interface CommittedEvents {
  events: StoredEvent[];
  checkpoints: Checkpoint[];
}

export interface GroupCommitOptions {
  outbox: boolean;
  /** Attempts for an append that lost a race it can retry (an `any` append, a key, a deadlock). */
  maxAttempts: number;
  /** Appends (units) per transaction at most. */
  maxGroup: number;
  /** Transactions in flight at once at most (PGlite runs one at a time whatever this says). */
  maxInFlight: number;
  /** Called once per committed group with its new events, before the appends resolve; never throws. */
  publish(committed: CommittedEvents): Promise<void>;
}

/** What is committed all or nothing: one append, or the items of one appendBatch. */
interface Unit {
  items: readonly AppendItem[];
  resolve(results: AppendResult[]): void;
  reject(error: unknown): void;
}

type Outcome = { results: Appended[] } | { error: unknown };

/**
 * Appends waiting, with no group in flight, from which the next group takes only half (see #groupSize).
 */
const SPLIT_AT = 16;

/**
 * Group commit. Appends arriving while `maxInFlight` groups are in flight wait and share the next one,
 * in the order they were submitted; an append that shares a stream, a key or an event id with a group
 * in flight waits for it (GroupQueue), so a stream is never in two groups at once and its appends keep
 * their order. A group is one statement (appendManyStatement), in which each append is accepted or
 * refused on its own (a refusal writes nothing), as if appended one by one. A statement that fails (a
 * race with another process on a unique constraint, a duplicate event id) writes nothing: the group is
 * then retried append by append.
 */
export class GroupCommitter {
  readonly #db: Executor;
  readonly #options: GroupCommitOptions;
  readonly #queue = new GroupQueue<Unit>();
  #inFlight = 0;
  #scheduled = false;

  constructor(db: Executor, options: GroupCommitOptions) {
    this.#db = db;
    this.#options = options;
  }

  /** Commits the items all or nothing, in a group with whatever else is waiting. */
  submit(items: readonly AppendItem[]): Promise<AppendResult[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      // A microtask later: appends submitted in the same turn (Promise.all) start as one group.
      queueMicrotask(() => {
        this.#scheduled = false;
        this.#start();
      });
    });
  }

  #start(): void {
    while (this.#inFlight < this.#options.maxInFlight) {
      const group = this.#queue.take(this.#groupSize());
      if (group === undefined) return;
      this.#inFlight++;
      void this.#run(group);
    }
  }

  /**
   * Writers released together (a group's appends resolve at once) submit together: taken whole, their
   * next appends would form one group again, and the client would encode a group while Postgres
   * waits, then Postgres run it while the client waits. With nothing in flight and many waiting, the
   * group takes half of them: the other half starts right after it, and from then on each half's
   * writers prepare their next appends while the other half's transaction runs. More in flight than
   * one is needed (with one, the second half would only wait).
   */
  #groupSize(): number {
    const { maxGroup, maxInFlight } = this.#options;
    const waiting = this.#queue.length;
    if (this.#inFlight > 0 || maxInFlight < 2 || waiting < SPLIT_AT) return maxGroup;
    return Math.min(maxGroup, Math.ceil(waiting / 2));
  }

  async #run(group: Group<Unit>): Promise<void> {
    const outcomes = await this.#commitGroup(group.units).catch((error: unknown) =>
      group.units.map(() => ({ error })),
    );
    this.#queue.release(group);
    this.#inFlight--;
    // Before publishing: the next group's transaction overlaps the publication (NATS acks).
    this.#start();
    await this.#settle(group.units, outcomes);
  }

  async #commitGroup(group: Unit[]): Promise<Outcome[]> {
    if (group.length === 1) return [await this.#commitUnit(group[0])];
    let settled: Array<PromiseSettledResult<Appended | 'lost_key_race'>>;
    try {
      const items = group.map((unit) => unit.items[0]);
      settled = await appendManyStatement(this.#db, items, this.#options.outbox);
    } catch (error) {
      // A statement that may have committed (see wroteNothing) is not retried: it could append twice.
      if (!wroteNothing(error)) return group.map(() => ({ error }));
      const outcomes: Outcome[] = [];
      for (const unit of group) outcomes.push(await this.#commitUnit(unit));
      return outcomes;
    }
    const outcomes: Outcome[] = [];
    for (const [i, outcome] of settled.entries()) {
      if (outcome.status === 'rejected') outcomes.push({ error: translate(outcome.reason) });
      else if (outcome.value === 'lost_key_race') outcomes.push(await this.#commitUnit(group[i]));
      else outcomes.push({ results: [outcome.value] });
    }
    return outcomes;
  }

  /** One unit on its own: a single append is one statement, atomic without a transaction. */
  async #commitUnit(unit: Unit): Promise<Outcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        if (unit.items.length === 1) return { results: [await this.#appendItem(this.#db, unit.items[0])] };
        return {
          results: await this.#db.transaction().execute(async (trx) => {
            const results: Appended[] = [];
            for (const item of unit.items) results.push(await this.#appendItem(trx, item));
            return results;
          }),
        };
      } catch (error) {
        // The retry runs the statement again: a pinned expected version that really went stale
        // surfaces there as WrongExpectedVersionError, a racing duplicate as a duplicate.
        if (!isRetryable(error)) return { error: translate(error) };
        if (attempt >= this.#options.maxAttempts) return { error: gaveUp(attempt, error) };
      }
    }
  }

  /** The statement, again while it finds its key taken by a writer that committed after it began. */
  async #appendItem(db: Executor, item: AppendItem): Promise<Appended> {
    for (let attempt = 1; ; attempt++) {
      const result = await appendStatement(db, item, this.#options.outbox);
      if (result !== 'lost_key_race') return result;
      if (attempt >= this.#options.maxAttempts) throw gaveUp(attempt, undefined);
    }
  }

  async #settle(group: Unit[], outcomes: Outcome[]): Promise<void> {
    const committed: CommittedEvents = { events: [], checkpoints: [] };
    for (const outcome of outcomes)
      if ('results' in outcome) outcome.results.forEach((a) => add(committed, a));
    try {
      await this.#options.publish(committed);
    } finally {
      group.forEach((unit, i) => {
        const outcome = outcomes[i];
        if ('results' in outcome) unit.resolve(outcome.results.map((appended) => appended.result));
        else unit.reject(outcome.error);
      });
    }
  }
}

/** An append's new events (a duplicate has none), with their checkpoints. */
function add(committed: CommittedEvents, { result, transactionId }: Appended): void {
  if (result.duplicate || transactionId === undefined) return;
  for (const event of result.events) {
    committed.events.push(event);
    committed.checkpoints.push({ transactionId, position: event.position });
  }
}

function gaveUp(attempt: number, cause: unknown): ConcurrencyConflictError {
  return new ConcurrencyConflictError(`append still conflicting after ${attempt} attempts`, { cause });
}

function isRetryable(error: unknown): boolean {
  const { code, constraint } = sqlState(error);
  if (code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE) return true;
  return code === UNIQUE_VIOLATION && constraint === 'events_stream_version_unique';
}

function translate(error: unknown): unknown {
  if (error instanceof EventStoreError) return error;
  const { code, constraint } = sqlState(error);
  if (code === UNIQUE_VIOLATION && constraint === 'events_id_unique') {
    return new DuplicateEventIdError('an event with this id is already stored', { cause: error });
  }
  return error;
}
