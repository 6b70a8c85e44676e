/** Who and why: carried by every event, never part of the domain payload. */
export interface EventMetadata {
  correlationId: string;
  causationId?: string;
  planVersion?: number;
  traceparent?: string;
  actor?: string;
  /** Which handler wrote the event (gateway, planner, ...). */
  producer?: string;
}

/** An event about to be appended. Ids and time come from the caller (domain code never reads a clock). */
export interface NewEvent<T extends string = string, P = unknown> {
  id: string;
  type: T;
  payload: P;
  metadata: EventMetadata;
  /** ISO-8601; defaults to the database clock. */
  timestamp?: string;
}

/** An event as stored: global position, stream, version within the stream. */
export interface StoredEvent<T extends string = string, P = unknown> {
  /** Global position (bigserial, normalized to a number at the store boundary). */
  position: number;
  id: string;
  streamId: string;
  /** 1-based version within the stream. */
  version: number;
  type: T;
  payload: P;
  metadata: EventMetadata;
  timestamp: string;
}

/** `no_stream`: the stream must not exist yet; `any`: no check; a number: the stream's current version. */
export type ExpectedVersion = number | 'any' | 'no_stream';

export interface AppendOptions {
  expectedVersion: ExpectedVersion;
  /**
   * Idempotency: the same key appended twice appends nothing the second time and returns the
   * events stored the first time (`duplicate: true`). Handlers key it by their name and the
   * causation event id.
   */
  idempotencyKey?: string;
}

export interface AppendResult {
  duplicate: boolean;
  events: StoredEvent[];
  /** The stream's version after the append. */
  nextVersion: number;
}

/**
 * A gap-safe position in the global log: rows are read in (transactionId, position) order and
 * only from transactions older than every transaction still in flight.
 */
export interface Checkpoint {
  transactionId: string;
  position: number;
}

export const START_CHECKPOINT: Checkpoint = { transactionId: '0', position: 0 };

export interface ReadAllResult {
  events: StoredEvent[];
  checkpoint: Checkpoint;
}
