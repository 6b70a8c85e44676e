import type { Checkpoint, ReadAllResult, StoredEvent } from '@flex/event-store';

/** One delivery of an event to a durable consumer. Meanings follow nats.js. */
export interface Delivery {
  event: StoredEvent;
  /** 1 on first delivery. */
  deliveryCount: number;
  /** Done: never deliver again to this consumer. */
  ack(): Promise<void>;
  /** Not done: deliver again, after `delayMs` when given. */
  nak(delayMs?: number): void;
  /** Never deliver again: the message cannot be processed. */
  term(reason?: string): void;
  /** Still working: extend the ack deadline. */
  working(): void;
}

export interface DeadLetter {
  consumer: string;
  event: StoredEvent;
  deliveryCount: number;
  reason: string;
}

export interface ConsumeOptions {
  /** Durable consumer name; every instance using the same name shares the work. */
  durable: string;
  /**
   * Event types this consumer handles; others are acked without calling the handler. Over NATS
   * the durable's filter keeps them on the server where it can (one type, or 2.10+).
   */
  types?: readonly string[];
  maxDeliver?: number;
  ackWaitMs?: number;
  /** Deliveries processed at once by this instance. */
  concurrency?: number;
  /** Called once when a delivery exhausts maxDeliver or is termed; record it durably. */
  onDeadLetter?: (dead: DeadLetter) => Promise<void>;
}

/**
 * Handles one delivery. Resolving without settling acks it; throwing naks it with backoff (200ms
 * doubling, capped at 30s), or dead-letters and terms it when the error says `retryable: false` or
 * this was the maxDeliver-th attempt. The handler may also ack/nak/term itself.
 */
export type DeliveryHandler = (delivery: Delivery) => Promise<void>;

export interface Consumer {
  stop(): Promise<void>;
}

/** Carries committed events between services. Postgres is the record; this is only the carrier. */
export interface EventBus {
  /** Publish committed events (dedupe by event id). */
  publish(events: readonly StoredEvent[]): Promise<void>;
  /** Durable, shared, explicitly acked consumption. */
  consume(options: ConsumeOptions, handler: DeliveryHandler): Promise<Consumer>;
  /** A hint that a stream has new events (best effort, not durable): the caller re-reads the store. */
  watch(streamId: string, onEvent: (event: StoredEvent) => void): Promise<() => void>;
  close(): Promise<void>;
}

export interface RequestOptions {
  timeoutMs: number;
  headers?: Record<string, string>;
}

export interface IncomingRequest {
  subject: string;
  data: unknown;
  headers: Record<string, string>;
}

/** Plain messaging (core NATS semantics): request/reply with queue groups, fire-and-forget publish. */
export interface Messaging {
  request<T = unknown>(subject: string, data: unknown, options: RequestOptions): Promise<T>;
  /** Serve a subject; instances sharing `queue` share the requests. The handler's value is the reply. */
  serve(
    subject: string,
    options: { queue?: string },
    handler: (req: IncomingRequest) => Promise<unknown>,
  ): Promise<() => Promise<void>>;
  publish(subject: string, data: unknown): Promise<void>;
  subscribe(subject: string, handler: (req: IncomingRequest) => void): Promise<() => Promise<void>>;
  /** Wait until in-flight handlers finish, then stop serving. */
  drain(): Promise<void>;
}

/** A page read from the global log, optionally with the checkpoint just after each event. */
export interface EventLogPage extends ReadAllResult {
  /**
   * Parallel to `events`: the checkpoint right after each one. When given, a consumer's persisted
   * checkpoint advances event by event; without it, only past whole pages.
   */
  checkpoints?: readonly Checkpoint[];
}

/** Told what the log gains as the store commits it (the shape of @flex/event-store's CommitFollower). */
export interface LogFollower {
  /** Committed events in commit order, each with the checkpoint a gap-safe read would give it. */
  committed(page: ReadAllResult & { checkpoints: readonly Checkpoint[] }): void;
  /** Something may have committed that will not be told: read the log to know. */
  unsure(): void;
}

/** What the store-backed bus needs from the event store: a gap-safe tail and checkpoint storage. */
export interface EventLog {
  readAll(after: Checkpoint, limit: number): Promise<EventLogPage>;
  /**
   * Only when the store is its database's sole writer (embedded PGlite): every commit, as it commits,
   * so the bus need not read back what was just appended. Returns the function that stops it.
   */
  follow?(follower: LogFollower): () => void;
  loadCheckpoint(name: string): Promise<Checkpoint | undefined>;
  saveCheckpoint(name: string, checkpoint: Checkpoint): Promise<void>;
  /** Several at once, all or none (one statement): the bus gathers its durables' saves into it. */
  saveCheckpoints?(saves: ReadonlyMap<string, Checkpoint>): Promise<void>;
}
