import type { Checkpoint, StoredEvent } from '@flex/event-store';
import type { EventLog, EventLogPage, LogFollower } from './types';

type FedPage = Parameters<LogFollower['committed']>[0];

export interface WindowRead {
  page: EventLogPage;
  /** Nothing more was committed when this was read: wait for the next wake before reading again. */
  atEnd: boolean;
}

interface PendingRead {
  /** The publish epoch when the read started: it sees everything published before. */
  epoch: number;
  limit: number;
  promise: Promise<EventLogPage>;
}

/**
 * The store-backed bus's one window onto the log: the most recent stretch of it the bus read, as a
 * gap-safe run of events. A page read gap-safe never changes afterwards (anything committing later
 * sorts after it), so consecutive pages are exactly what the log holds between their ends, and a
 * durable reading from any checkpoint inside the window is served from memory. Extending the window
 * is one read, shared by every durable waiting at its end; durables outside it share one read per
 * checkpoint. A short page means "nothing more yet", so one is only handed out if its read started
 * after the caller's wake (publish epoch): an event committed before a publish is never missed.
 */
export class LogWindow {
  /** The checkpoint before the first event; undefined until the first read. */
  private start: Checkpoint | undefined;
  private events: StoredEvent[] = [];
  /** Parallel to `events`: the checkpoint right after each one, when the log gave it. */
  private afters: Array<Checkpoint | undefined> = [];
  /** Known checkpoints in the window → absolute index of the event right after them. */
  private readonly index = new Map<string, number>();
  private dropped = 0;
  /** Epoch of the read that found nothing past the window's end (a short page); -1: not found. */
  private endSeenAt = -1;
  private epoch = 0;
  private extending: PendingRead | undefined;
  private readonly direct = new Map<string, PendingRead>();

  constructor(
    private readonly log: EventLog,
    private readonly capacity: number,
  ) {}

  /** Something was published (or may have been committed): the next short page must be read anew. */
  invalidate(): void {
    this.epoch++;
  }

  /**
   * Events the store, its database's sole writer, just committed, with their checkpoints. There every
   * transaction runs after the last one committed (one session), so positions, taken from a sequence,
   * and transaction ids both grow in commit order: no event can lie between the window's end and the
   * event with the next position. The events that continue the window so are taken, in memory; from
   * the first one further on (a sequence value a failed append burnt, or a commit not told) the rest
   * is left to a read. Returns whether the window now reaches every event of the page.
   */
  feed(page: FedPage): boolean {
    let last = this.end();
    if (!last) return false;
    let i = 0;
    while (i < page.events.length && compareCheckpoints(page.checkpoints[i], last) <= 0) i++;
    for (; i < page.events.length; i++) {
      const at = page.checkpoints[i];
      if (at.position !== last.position + 1 || compareCheckpoints(at, last) <= 0) break;
      this.pushOne(page.events[i], at);
      last = at;
    }
    this.trim();
    return i === page.events.length;
  }

  async read(after: Checkpoint, limit: number): Promise<WindowRead> {
    const epoch = this.epoch;
    for (;;) {
      const slice = this.slice(after, limit);
      if (!slice) return this.readDirect(after, limit, epoch);
      const { page, reachesEnd } = slice;
      if (page.events.length >= limit || !reachesEnd) return { page, atEnd: false };
      if (this.endSeenAt >= epoch) return { page, atEnd: true };
      await this.extend(limit);
    }
  }

  private slice(after: Checkpoint, limit: number): { page: EventLogPage; reachesEnd: boolean } | undefined {
    const at = this.index.get(key(after));
    if (at === undefined) return undefined;
    const from = at - this.dropped;
    let to = Math.min(this.events.length, from + limit);
    // Without per-event checkpoints a page may only end where the log said a checkpoint is.
    while (to > from && !this.afters[to - 1]) to--;
    if (to === from && from < this.events.length) to = firstKnown(this.afters, from) + 1;
    const events = this.events.slice(from, to);
    const afters = this.afters.slice(from, to);
    const checkpoints = afters.every((c) => c !== undefined) ? { checkpoints: afters } : {};
    const checkpoint = (to > from ? afters[afters.length - 1] : undefined) ?? after;
    const page = { events, checkpoint, ...checkpoints };
    return { page, reachesEnd: to === this.events.length };
  }

  /** One read from the window's end at a time; a caller woken after it started waits for the next. */
  private async extend(limit: number): Promise<void> {
    const pending = this.extending;
    if (pending) {
      await pending.promise;
      return;
    }
    const from = this.end();
    if (!from) return;
    const started = this.epoch;
    const mine: PendingRead = { epoch: started, limit, promise: this.log.readAll(from, limit) };
    this.extending = mine;
    try {
      this.adopt(from, await mine.promise, mine);
    } finally {
      if (this.extending === mine) this.extending = undefined;
    }
  }

  private async readDirect(after: Checkpoint, limit: number, epoch: number): Promise<WindowRead> {
    const name = key(after);
    let pending = this.direct.get(name);
    if (!pending || pending.epoch < epoch || pending.limit !== limit) {
      const mine: PendingRead = { epoch: this.epoch, limit, promise: this.log.readAll(after, limit) };
      this.direct.set(name, mine);
      // Registered before any caller's await, so the window has taken the page when they resume.
      mine.promise.then(
        (page) => this.adopt(after, page, mine),
        () => undefined,
      );
      void mine.promise
        .finally(() => this.direct.get(name) === mine && this.direct.delete(name))
        .catch(() => undefined);
      pending = mine;
    }
    const page = await pending.promise;
    return { page, atEnd: page.events.length < limit };
  }

  /** Takes a page read from `from` into the window when it starts or continues the window's run. */
  private adopt(from: Checkpoint, page: EventLogPage, read: PendingRead): void {
    const end = this.end();
    const short = page.events.length < read.limit;
    if (end === undefined || compareCheckpoints(from, end) > 0) {
      this.reset(from);
      this.push(page, 0);
      this.endSeenAt = short ? read.epoch : -1;
      return;
    }
    if (compareCheckpoints(page.checkpoint, end) < 0) return;
    let joint = 0;
    if (!sameCheckpoint(from, end)) {
      const i = knownIndex(page, end);
      if (i < 0) return; // the window's end is not a checkpoint of this page
      joint = i + 1;
    }
    const added = page.events.length - joint;
    if (added > 0) this.endSeenAt = short ? read.epoch : -1;
    else if (short) this.endSeenAt = Math.max(this.endSeenAt, read.epoch);
    this.push(page, joint);
    this.trim();
  }

  private reset(start: Checkpoint): void {
    this.dropped += this.events.length;
    this.events = [];
    this.afters = [];
    this.index.clear();
    this.start = start;
    this.index.set(key(start), this.dropped);
  }

  private push(page: EventLogPage, from: number): void {
    for (let i = from; i < page.events.length; i++) {
      const after = page.checkpoints?.[i] ?? (i === page.events.length - 1 ? page.checkpoint : undefined);
      this.pushOne(page.events[i], after);
    }
  }

  private pushOne(event: StoredEvent, after: Checkpoint | undefined): void {
    this.events.push(event);
    this.afters.push(after);
    if (after) this.index.set(key(after), this.dropped + this.events.length);
  }

  /** Keeps the most recent `capacity` events (a little more, to start at a known checkpoint). */
  private trim(): void {
    const excess = this.events.length - this.capacity;
    if (excess <= 0) return;
    const cut = firstKnown(this.afters, excess - 1) + 1;
    if (this.start) this.index.delete(key(this.start));
    for (let i = 0; i < cut - 1; i++) {
      const after = this.afters[i];
      if (after) this.index.delete(key(after));
    }
    this.start = this.afters[cut - 1];
    this.events = this.events.slice(cut);
    this.afters = this.afters.slice(cut);
    this.dropped += cut;
  }

  private end(): Checkpoint | undefined {
    return this.events.length > 0 ? this.afters[this.afters.length - 1] : this.start;
  }
}

/** Log order: by transaction id, then position (the order of a gap-safe read). */
export function compareCheckpoints(a: Checkpoint, b: Checkpoint): number {
  const tx = BigInt(a.transactionId) - BigInt(b.transactionId);
  if (tx !== 0n) return tx > 0n ? 1 : -1;
  return a.position - b.position;
}

export function sameCheckpoint(a: Checkpoint, b: Checkpoint | undefined): boolean {
  return b !== undefined && a.transactionId === b.transactionId && a.position === b.position;
}

function key(checkpoint: Checkpoint): string {
  return `${checkpoint.transactionId}:${checkpoint.position}`;
}

function firstKnown(afters: ReadonlyArray<Checkpoint | undefined>, from: number): number {
  let i = from;
  while (i < afters.length - 1 && !afters[i]) i++;
  return i;
}

function knownIndex(page: EventLogPage, checkpoint: Checkpoint): number {
  for (let i = 0; i < page.events.length; i++) {
    const after = page.checkpoints?.[i] ?? (i === page.events.length - 1 ? page.checkpoint : undefined);
    if (after && sameCheckpoint(after, checkpoint)) return i;
  }
  return -1;
}
