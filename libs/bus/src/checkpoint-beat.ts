import type { Checkpoint } from '@flex/event-store';
import type { EventLog } from './types';

interface Pending {
  checkpoint: Checkpoint;
  waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
}

/**
 * The store-backed bus's one clock for checkpoint writes: every durable whose acks are waiting to be
 * saved is called on the same beat (at most `delayMs` after the first asked), and the saves they make
 * in that turn go out as one statement when the log can write several at once (`saveCheckpoints`).
 * A save made apart from a beat (on stop or close) is written in the next turn, with any others.
 */
export class CheckpointBeat {
  private readonly due = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private readonly pending = new Map<string, Pending>();
  private flushing = false;

  constructor(
    private readonly log: EventLog,
    private readonly delayMs: number,
  ) {}

  /** Calls `fn` on the next beat. Returns the cancel. */
  soon(fn: () => void): () => void {
    this.due.add(fn);
    if (!this.timer) {
      this.timer = setTimeout(() => this.beat(), this.delayMs);
      this.timer.unref();
    }
    return () => this.due.delete(fn);
  }

  /** Saves the checkpoint with the others saved in this turn; a later one of the same name wins. */
  save(name: string, checkpoint: Checkpoint): Promise<void> {
    return new Promise((resolve, reject) => {
      const held = this.pending.get(name);
      this.pending.set(name, { checkpoint, waiters: [...(held?.waiters ?? []), { resolve, reject }] });
      if (this.flushing) return;
      this.flushing = true;
      setImmediate(() => void this.flush());
    });
  }

  private beat(): void {
    this.timer = undefined;
    const due = [...this.due];
    this.due.clear();
    for (const fn of due) fn();
  }

  private async flush(): Promise<void> {
    const batch = new Map(this.pending);
    this.pending.clear();
    this.flushing = false;
    const saves = new Map([...batch].map(([name, p]) => [name, p.checkpoint]));
    try {
      if (this.log.saveCheckpoints && saves.size > 1) await this.log.saveCheckpoints(saves);
      else for (const [name, checkpoint] of saves) await this.log.saveCheckpoint(name, checkpoint);
      for (const p of batch.values()) p.waiters.forEach((w) => w.resolve());
    } catch (error) {
      for (const p of batch.values()) p.waiters.forEach((w) => w.reject(error));
    }
  }
}
