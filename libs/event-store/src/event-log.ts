import type { Kysely } from 'kysely';
import { loadCheckpoint, saveCheckpoint, saveCheckpoints } from './checkpoints';
import type { CommitFollower, EventStore } from './event-store';
import type { EventStoreDatabase } from './event-store.table';
import type { ReadAllPage } from './read';
import type { Checkpoint } from './types';

/** What a store-backed consumer needs to tail the log durably (the bus's in-process consumers). */
export interface EventLog {
  /** Gap-safe; `checkpoints[i]` is the checkpoint just after `events[i]`. */
  readAll(after: Checkpoint, limit: number): Promise<ReadAllPage>;
  /** START_CHECKPOINT when the name has none yet. */
  loadCheckpoint(name: string): Promise<Checkpoint>;
  saveCheckpoint(name: string, checkpoint: Checkpoint): Promise<void>;
  /** Several in one statement. */
  saveCheckpoints(saves: ReadonlyMap<string, Checkpoint>): Promise<void>;
  /** Only when the store is its database's sole writer: what it commits, as it commits (see EventStore.follow). */
  follow?(follower: CommitFollower): () => void;
}

export function createEventLog(store: EventStore, db: Kysely<EventStoreDatabase>): EventLog {
  return {
    readAll: (after, limit) => store.readAll(after, limit),
    loadCheckpoint: (name) => loadCheckpoint(db, name),
    saveCheckpoint: (name, checkpoint) => saveCheckpoint(db, name, checkpoint),
    saveCheckpoints: (saves) => saveCheckpoints(db, saves),
    ...(store.soleWriter ? { follow: (follower: CommitFollower) => store.follow(follower) } : {}),
  };
}
