import { randomUUID } from 'node:crypto';
import type { Checkpoint, StoredEvent } from '@flex/event-store';
import type { EventLog, EventLogPage } from '../types';

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
 * store without per-event checkpoints would. Records reads and saved checkpoints.
 */
export class MemoryEventLog implements EventLog {
  readonly events: StoredEvent[] = [];
  readonly saved = new Map<string, Checkpoint>();
  /** The `after` of every read, in order. */
  readonly reads: Checkpoint[] = [];

  constructor(private readonly options: { perEventCheckpoints?: boolean } = {}) {}

  append(inputs: readonly TestEventInput[]): StoredEvent[] {
    const added = inputs.map((input, i) => storedEvent(this.events.length + 1 + i, input));
    this.events.push(...added);
    return added;
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
