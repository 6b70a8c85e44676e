import { randomUUID } from 'node:crypto';
import type { Checkpoint, StoredEvent } from '@flex/event-store';
import type { EventLog, EventLogPage, LogFollower } from '../types';

export interface TestEventInput {
  type: string;
  streamId?: string;
  id?: string;
  payload?: unknown;
}

/** A StoredEvent for tests; positions are the caller's business. */
export function storedEvent(position: number, input: TestEventInput): StoredEvent {
  return {
    position,
    id: input.id ?? randomUUID(),
    streamId: input.streamId ?? 'run-1',
    version: position,
    type: input.type,
    payload: input.payload ?? { n: position },
    metadata: { correlationId: 'test' },
    timestamp: new Date(0).toISOString(),
  };
}

/**
 * An EventLog in memory, checkpoint = position. `perEventCheckpoints: false` reads pages the way a
 * store without per-event checkpoints would. `followable: true` makes it a sole writer's log whose
 * commit() tells followers. Records reads and saved checkpoints.
 */
export class MemoryEventLog implements EventLog {
  readonly events: StoredEvent[] = [];
  readonly saved = new Map<string, Checkpoint>();
  /** The `after` of every read, in order. */
  readonly reads: Checkpoint[] = [];
  readonly follow?: (follower: LogFollower) => () => void;
  private readonly followers = new Set<LogFollower>();
  private next = 1;

  constructor(private readonly options: { perEventCheckpoints?: boolean; followable?: boolean } = {}) {
    if (options.followable) {
      this.follow = (follower) => {
        this.followers.add(follower);
        return () => void this.followers.delete(follower);
      };
    }
  }

  get following(): number {
    return this.followers.size;
  }

  /** Committed without telling the followers (another writer, a commit whose outcome was lost). */
  append(inputs: readonly TestEventInput[]): StoredEvent[] {
    const added = inputs.map((input) => storedEvent(this.next++, input));
    this.events.push(...added);
    return added;
  }

  /** Committed and told, as a sole writer's store does. */
  commit(inputs: readonly TestEventInput[]): StoredEvent[] {
    const events = this.append(inputs);
    const checkpoints = events.map((e) => at(e.position));
    for (const follower of this.followers)
      follower.committed({ events, checkpoints, checkpoint: checkpoints.at(-1)! });
    return events;
  }

  /** Sequence values taken by an append that failed: positions no event will have. */
  burn(count: number): void {
    this.next += count;
  }

  unsure(): void {
    for (const follower of this.followers) follower.unsure();
  }

  async readAll(after: Checkpoint, limit: number): Promise<EventLogPage> {
    this.reads.push(after);
    const events = this.events.filter((e) => e.position > after.position).slice(0, limit);
    const checkpoints = events.map((e) => at(e.position));
    return {
      events,
      checkpoint: events.length ? checkpoints[checkpoints.length - 1] : after,
      ...(this.options.perEventCheckpoints === false ? {} : { checkpoints }),
    };
  }

  async loadCheckpoint(name: string): Promise<Checkpoint | undefined> {
    return this.saved.get(name);
  }

  async saveCheckpoint(name: string, checkpoint: Checkpoint): Promise<void> {
    this.saved.set(name, checkpoint);
  }
}

export function at(position: number): Checkpoint {
  return { transactionId: '1', position };
}
