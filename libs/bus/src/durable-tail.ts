import type { Checkpoint, StoredEvent } from '@flex/event-store';
import type { CheckpointBeat } from './checkpoint-beat';
import type { ParsedConsumeOptions } from './consume-options';
import { runDelivery, type RawDelivery } from './delivery-runner';
import { describe } from './errors';
import type { BusLogger } from './logger';
import { sameCheckpoint, type LogWindow } from './log-window';
import type { DeliveryHandler, EventLog, EventLogPage } from './types';

/**
 * Where a durable with no saved checkpoint starts: the value of @flex/event-store's START_CHECKPOINT.
 * The bus imports the store's types only, so processes using it (agents) never load the store.
 */
const START: Checkpoint = { transactionId: '0', position: 0 };

export interface TailSettings {
  batchSize: number;
  /** Events held in memory (read but not yet acked) before reading pauses. */
  maxPending: number;
  /** Ids of acked events remembered to drop a re-read duplicate. */
  rememberAcked: number;
  /**
   * The bus's clock for checkpoint writes: acks are gathered until its next beat into one write
   * (saved at once on stop and close), and every durable's due save goes out together.
   */
  beat: CheckpointBeat;
  logger: BusLogger;
}

interface Entry {
  event: StoredEvent;
  /** The log position right after this event; absent inside a page read without per-event checkpoints. */
  checkpoint?: Checkpoint;
  state: 'ready' | 'inflight' | 'delayed' | 'done';
  deliveryCount: number;
  /** Which delivery is current: a nak or deadline of an older one is ignored (acks and terms count). */
  attempt: number;
  timer?: NodeJS.Timeout;
}

export interface TailWorker {
  options: ParsedConsumeOptions;
  handler: DeliveryHandler;
  inFlight: Set<Promise<void>>;
}

/**
 * One durable consumer of the store-backed bus: a single tail of the event log from the durable's
 * persisted checkpoint, whose deliveries are shared by every worker (consume() call) on it.
 * The checkpoint it persists only ever passes events that are settled, and settled contiguously
 * from the start of the window: a crash redelivers everything not yet acked. Acks are gathered for
 * the bus's checkpoint delay into one write, so a crash also redelivers what was acked in that last moment
 * but not yet saved: at least once, as before (handlers are idempotent by key).
 */
export class DurableTail {
  private readonly entries: Entry[] = [];
  /** Ids in the window, and ids recently acked: an id seen in either is a duplicate. */
  private readonly inWindow = new Set<string>();
  private readonly acked = new Set<string>();
  private readonly workers: TailWorker[] = [];
  private readCheckpoint: Checkpoint | undefined;
  private committed: Checkpoint | undefined;
  private pumping: Promise<void> | undefined;
  private pumpAgain = false;
  /** Reading paused because the window is full; resumes once it has drained to half. */
  private windowFull = false;
  private saving: Promise<void> | undefined;
  /** Cancels the save waiting for the next beat. */
  private cancelSave: (() => void) | undefined;
  /** The checkpoint last loaded or saved. */
  private persisted: Checkpoint | undefined;
  private nextWorker = 0;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly window: LogWindow,
    private readonly name: string,
    private readonly checkpointName: string,
    private readonly settings: TailSettings,
  ) {}

  addWorker(options: ParsedConsumeOptions, handler: DeliveryHandler): TailWorker {
    const worker: TailWorker = { options, handler, inFlight: new Set() };
    this.workers.push(worker);
    this.wake();
    return worker;
  }

  async removeWorker(worker: TailWorker): Promise<void> {
    const index = this.workers.indexOf(worker);
    if (index >= 0) this.workers.splice(index, 1);
    await Promise.all(worker.inFlight);
    await this.flush();
  }

  /** Read whatever is new (coalesced: a wake during a read triggers one more read). */
  wake(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.wake();
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.entries) clearTimeout(entry.timer);
    await Promise.all(this.workers.map((w) => this.removeWorker(w)));
    await this.pumping;
    await this.flush();
  }

  /** Saves the gathered checkpoint now, and waits until nothing is being saved. */
  private async flush(): Promise<void> {
    this.cancelSave?.();
    this.cancelSave = undefined;
    this.save();
    while (this.saving) await this.saving;
  }

  private async pump(): Promise<void> {
    try {
      if (!this.readCheckpoint) {
        this.readCheckpoint = (await this.log.loadCheckpoint(this.checkpointName)) ?? START;
        this.committed = this.readCheckpoint;
        this.persisted = this.readCheckpoint;
      }
      while (!this.closed && this.workers.length > 0) {
        if (this.entries.length >= this.settings.maxPending) {
          this.windowFull = true;
          break;
        }
        const { page, atEnd } = await this.window.read(this.readCheckpoint, this.settings.batchSize);
        this.append(page);
        this.dispatch();
        if (atEnd || page.events.length === 0) break;
      }
    } catch (error) {
      this.settings.logger.warn('reading the event log failed; retrying on the next wake', {
        consumer: this.name,
        error: describe(error),
      });
    }
  }

  private append(page: EventLogPage): void {
    page.events.forEach((event, i) => {
      const checkpoint =
        page.checkpoints?.[i] ?? (i === page.events.length - 1 ? page.checkpoint : undefined);
      const duplicate = this.inWindow.has(event.id) || this.acked.has(event.id);
      // A duplicate still takes its place in the window, already done, so its checkpoint is kept.
      this.entries.push({
        event,
        checkpoint,
        state: duplicate ? 'done' : 'ready',
        deliveryCount: 0,
        attempt: 0,
      });
      this.inWindow.add(event.id);
    });
    this.readCheckpoint = page.checkpoint;
    this.advance();
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const entry of this.entries) {
      if (entry.state !== 'ready') continue;
      const worker = this.freeWorker();
      if (!worker) return;
      this.deliver(entry, worker);
    }
  }

  private freeWorker(): TailWorker | undefined {
    for (let i = 0; i < this.workers.length; i++) {
      const worker = this.workers[(this.nextWorker + i) % this.workers.length];
      if (worker.inFlight.size < worker.options.concurrency) {
        this.nextWorker = (this.nextWorker + i + 1) % this.workers.length;
        return worker;
      }
    }
    return undefined;
  }

  private deliver(entry: Entry, worker: TailWorker): void {
    entry.state = 'inflight';
    entry.deliveryCount++;
    const attempt = ++entry.attempt;
    const ackWaitMs = worker.options.ackWaitMs;
    const isCurrent = () => entry.attempt === attempt && entry.state === 'inflight';
    const expire = () => isCurrent() && this.makeReady(entry);
    this.setTimer(entry, ackWaitMs, expire);
    const raw: RawDelivery = {
      event: entry.event,
      deliveryCount: entry.deliveryCount,
      ack: async () => this.done(entry),
      nak: (delayMs = 0) => isCurrent() && this.redeliver(entry, delayMs),
      term: () => this.done(entry),
      working: () => isCurrent() && this.setTimer(entry, ackWaitMs, expire),
    };
    // Started on a later tick, as a carrier would: nothing a handler does runs inside dispatch().
    const running: Promise<void> = Promise.resolve()
      .then(() => runDelivery(raw, worker.options, worker.handler, this.settings.logger))
      .catch((error: unknown) =>
        this.settings.logger.error('delivery failed unexpectedly', {
          consumer: this.name,
          error: describe(error),
        }),
      )
      .finally(() => {
        worker.inFlight.delete(running);
        this.dispatch();
      });
    worker.inFlight.add(running);
  }

  private redeliver(entry: Entry, delayMs: number): void {
    if (delayMs <= 0) return this.makeReady(entry);
    entry.state = 'delayed';
    this.setTimer(entry, delayMs, () => entry.state === 'delayed' && this.makeReady(entry));
  }

  private makeReady(entry: Entry): void {
    clearTimeout(entry.timer);
    entry.state = 'ready';
    this.dispatch();
  }

  /** Acked or termed: never delivered again. A late ack (or term) of an older delivery still counts. */
  private done(entry: Entry): void {
    if (entry.state === 'done') return;
    clearTimeout(entry.timer);
    entry.state = 'done';
    this.advance();
  }

  private setTimer(entry: Entry, ms: number, fire: () => void): void {
    clearTimeout(entry.timer);
    if (this.closed) return;
    entry.timer = setTimeout(fire, ms);
    entry.timer.unref();
  }

  /** Drops the settled head of the window and persists the checkpoint right after it. */
  private advance(): void {
    let checkpoint: Checkpoint | undefined;
    for (let head = this.entries.at(0); head?.state === 'done'; head = this.entries.at(0)) {
      this.entries.shift();
      this.inWindow.delete(head.event.id);
      this.remember(head.event.id);
      checkpoint = head.checkpoint ?? checkpoint;
    }
    if (this.entries.length === 0) checkpoint = this.readCheckpoint;
    if (checkpoint && !sameCheckpoint(checkpoint, this.committed)) {
      this.committed = checkpoint;
      this.saveSoon();
    }
    if (this.windowFull && this.entries.length <= this.settings.maxPending / 2) {
      this.windowFull = false;
      this.wake();
    }
  }

  private remember(id: string): void {
    this.acked.add(id);
    if (this.acked.size <= this.settings.rememberAcked) return;
    const oldest = this.acked.values().next();
    if (!oldest.done) this.acked.delete(oldest.value);
  }

  /** Gathers the acks until the next beat (at most the bus's checkpoint delay) into one write. */
  private saveSoon(): void {
    if (this.cancelSave || this.saving) return;
    if (this.closed) return this.save();
    this.cancelSave = this.settings.beat.soon(() => {
      this.cancelSave = undefined;
      this.save();
    });
  }

  /** One save at a time; a save that finds a newer checkpoint when done saves that one soon. */
  private save(): void {
    const target = this.committed;
    if (this.saving || target === undefined || sameCheckpoint(target, this.persisted)) return;
    this.saving = this.settings.beat
      .save(this.checkpointName, target)
      .then(() => void (this.persisted = target))
      .catch((error: unknown) =>
        this.settings.logger.warn('saving a consumer checkpoint failed', {
          consumer: this.name,
          error: describe(error),
        }),
      )
      .finally(() => {
        this.saving = undefined;
        if (!sameCheckpoint(target, this.committed)) this.saveSoon();
      });
  }
}
