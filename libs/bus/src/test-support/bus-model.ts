import type { Checkpoint, StoredEvent } from '@flex/event-store';
import { compareCheckpoints } from '../log-window';
import type { EventLog, EventLogPage, LogFollower } from '../types';

/** What every incarnation (process lifetime) of the bus did, as the model's guarantees need it. */
export class BusRecord {
  /** The log position right after each of this case's events, as read (the same for every read). */
  readonly checkpointOf = new Map<string, Checkpoint>();
  readonly deliveries: Array<{ incarnation: number; durable: string; event: StoredEvent; count: number }> =
    [];
  readonly acks = new Set<string>();
  readonly loaded = new Map<string, Checkpoint>();
  readonly violations: string[] = [];

  /** This case's events are those of streams under `prefix`. */
  constructor(private readonly prefix: string) {}

  mine(event: StoredEvent): boolean {
    return event.streamId.startsWith(this.prefix);
  }

  /** A page read, or told by the store: an event's checkpoint is the same whichever way it came. */
  read(page: EventLogPage): void {
    page.events.forEach((event, i) => {
      const after = page.checkpoints?.[i];
      if (!after || !this.mine(event)) return;
      const before = this.checkpointOf.get(event.id);
      if (before && compareCheckpoints(before, after) !== 0)
        this.violations.push(`${event.id} at ${JSON.stringify(after)}, before ${JSON.stringify(before)}`);
      this.checkpointOf.set(event.id, after);
    });
  }

  delivered(incarnation: number, durable: string, event: StoredEvent, count: number): void {
    if (!this.mine(event)) return;
    const from = this.loaded.get(`${incarnation}/${durable}`);
    const at = this.checkpointOf.get(event.id);
    if (from && at && compareCheckpoints(at, from) <= 0)
      this.violations.push(`${durable}#${incarnation} got ${event.position}, saved before it was loaded`);
    this.deliveries.push({ incarnation, durable, event, count });
  }

  acked(incarnation: number, durable: string, event: StoredEvent): void {
    this.acks.add(`${incarnation}/${durable}/${event.id}`);
  }

  /** A save may only pass events this incarnation acked (or found behind its loaded checkpoint). */
  saving(incarnation: number, durable: string, checkpoint: Checkpoint): void {
    const from = this.loaded.get(`${incarnation}/${durable}`)!;
    for (const [id, at] of this.checkpointOf) {
      if (compareCheckpoints(at, from) <= 0 || compareCheckpoints(at, checkpoint) > 0) continue;
      if (!this.acks.has(`${incarnation}/${durable}/${id}`))
        this.violations.push(`${durable}#${incarnation} saved ${checkpoint.position} past un-acked ${id}`);
    }
  }
}

/** The store as one incarnation of the process sees it: once crashed, it reads and saves nothing. */
export class IncarnationLog implements EventLog {
  dead = false;

  constructor(
    private readonly inner: EventLog,
    private readonly record: BusRecord,
    readonly incarnation: number,
    private readonly durableOf: (checkpointName: string) => string,
  ) {}

  async readAll(after: Checkpoint, limit: number): Promise<EventLogPage> {
    if (this.dead) throw new Error('crashed');
    const page = await this.inner.readAll(after, limit);
    this.record.read(page);
    return page;
  }

  /** Present when the inner log's is: what the store tells reaches a crashed process no more. */
  get follow(): EventLog['follow'] {
    const follow = this.inner.follow?.bind(this.inner);
    if (!follow) return undefined;
    return (follower: LogFollower) =>
      follow({
        committed: (page) => {
          if (this.dead) return;
          this.record.read(page);
          follower.committed(page);
        },
        unsure: () => this.dead || follower.unsure(),
      });
  }

  async loadCheckpoint(name: string): Promise<Checkpoint | undefined> {
    const checkpoint = await this.inner.loadCheckpoint(name);
    if (checkpoint) this.record.loaded.set(`${this.incarnation}/${this.durableOf(name)}`, checkpoint);
    return checkpoint;
  }

  async saveCheckpoint(name: string, checkpoint: Checkpoint): Promise<void> {
    if (this.dead) return; // the process is gone: what it had not saved is lost
    this.record.saving(this.incarnation, this.durableOf(name), checkpoint);
    await this.inner.saveCheckpoint(name, checkpoint);
  }

  async saveCheckpoints(saves: ReadonlyMap<string, Checkpoint>): Promise<void> {
    if (this.dead) return;
    for (const [name, checkpoint] of saves)
      this.record.saving(this.incarnation, this.durableOf(name), checkpoint);
    if (this.inner.saveCheckpoints) await this.inner.saveCheckpoints(saves);
    else for (const [name, checkpoint] of saves) await this.inner.saveCheckpoint(name, checkpoint);
  }
}
