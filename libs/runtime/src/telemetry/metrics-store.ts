import { runIdFromStreamId } from '@flex/contracts';
import {
  EventStore,
  type AppendItem,
  type AppendOptions,
  type AppendResult,
  type EventStoreDatabase,
  type EventStoreOptions,
  type NewEvent,
  type StoredEvent,
} from '@flex/event-store';
import { sql, type Kysely } from 'kysely';
import type { Logger } from './log';
import type { FlexMetrics } from './metrics';
import { measuresOf, type Timing } from './metrics-events';

/**
 * An EventStore that times every append (`flex_event_store_append_duration_seconds`) and notes the
 * beginnings of durations among the events its stream tails bring (`beginnings`): a process that
 * read a run's first event need not look it up again when it commits the run's end.
 */
export class TimedEventStore extends EventStore {
  readonly #metrics: FlexMetrics;
  readonly #beginnings: Beginnings | undefined;

  constructor(
    db: Kysely<EventStoreDatabase>,
    metrics: FlexMetrics,
    options: EventStoreOptions,
    beginnings?: Beginnings,
  ) {
    super(db, options);
    this.#metrics = metrics;
    this.#beginnings = beginnings;
  }

  override async readTail(
    streamId: string,
    afterVersion: number,
    limit?: number,
  ): Promise<readonly StoredEvent[]> {
    const events = await super.readTail(streamId, afterVersion, limit);
    if (this.#beginnings) for (const event of events) this.#beginnings.note(event);
    return events;
  }

  override append(streamId: string, events: NewEvent[], options: AppendOptions): Promise<AppendResult> {
    return this.#timed(() => super.append(streamId, events, options));
  }

  override appendBatch(items: ReadonlyArray<AppendItem>): Promise<AppendResult[]> {
    return this.#timed(() => super.appendBatch(items));
  }

  async #timed<T>(append: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let outcome = 'error';
    try {
      const result = await append();
      outcome = 'ok';
      return result;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      this.#metrics.observe({ family: 'appendDuration', labels: { outcome } }, seconds);
    }
  }
}

/**
 * When the durations this process may end began, as it committed their first events: a run's first
 * event, a HITL request. Bounded (the oldest forgotten first): a duration whose beginning another
 * process committed, or that was forgotten, is looked up in the store instead.
 */
export class Beginnings {
  private readonly at = new Map<string, number>();

  constructor(private readonly max = 10_000) {}

  /** Remember when `event` began a duration, if it did. */
  note(event: StoredEvent): void {
    const key = beginningKey(event);
    if (key === undefined) return;
    this.at.delete(key);
    this.at.set(key, Date.parse(event.timestamp));
    if (this.at.size > this.max) this.at.delete(this.at.keys().next().value as string);
  }

  /** When `timing` began, if this process committed its beginning (told once). */
  take(timing: Timing): number | undefined {
    const key = timingKey(timing);
    const began = this.at.get(key);
    this.at.delete(key);
    return began;
  }
}

/** A run's duration or a HITL wait, by the stream (and request) it belongs to. */
function durationKey(streamId: string, requestId?: string): string {
  return requestId === undefined ? `run ${streamId}` : `hitl ${streamId} ${requestId}`;
}

function beginningKey(event: StoredEvent): string | undefined {
  if (event.version === 1) return runIdFromStreamId(event.streamId) ? durationKey(event.streamId) : undefined;
  const requestId = (event.payload as { requestId?: unknown } | null)?.requestId;
  return event.type === 'hitl_request' && typeof requestId === 'string'
    ? durationKey(event.streamId, requestId)
    : undefined;
}

function timingKey(timing: Timing): string {
  return durationKey(timing.streamId, timing.family === 'hitlWait' ? timing.requestId : undefined);
}

/**
 * Counts what committed events stand for (see measuresOf), in the process whose append committed
 * them: call it from the store's afterCommit, which sees each event once, duplicates excluded.
 * A duration that began with an event this process committed is observed at once (`beginnings`);
 * one that began elsewhere is looked up and observed in the background; a failed lookup is reported
 * to `onError` and costs only that observation.
 */
export function recordCommitted(
  metrics: FlexMetrics,
  db: Kysely<EventStoreDatabase>,
  events: readonly StoredEvent[],
  beginnings: Beginnings,
  onError: (error: unknown) => void,
): void {
  for (const event of events) beginnings.note(event);
  for (const event of events) {
    const { increments, timings } = measuresOf(event);
    for (const increment of increments) metrics.count(increment);
    for (const timing of timings) {
      const known = beginnings.take(timing);
      if (known !== undefined) {
        metrics.observe(timing, secondsBetween(known, timing.endedAt));
        continue;
      }
      beganAt(db, timing)
        .then((began) => {
          if (began) metrics.observe(timing, secondsBetween(began, timing.endedAt));
        })
        .catch(onError);
    }
  }
}

/** When the timing began, in epoch milliseconds (computed by the database: drivers hand timestamps differently). */
async function beganAt(db: Kysely<EventStoreDatabase>, timing: Timing): Promise<number | undefined> {
  let query = db
    .selectFrom('events')
    .select(sql<string | number>`extract(epoch from recorded_at) * 1000`.as('began'))
    .where('stream_id', '=', timing.streamId);
  query =
    timing.family === 'runDuration'
      ? query.where('version', '=', 1)
      : query
          .where('type', '=', 'hitl_request')
          .where(sql<string>`payload->>'requestId'`, '=', timing.requestId)
          .orderBy('version', 'desc')
          .limit(1);
  const row = await query.executeTakeFirst();
  return row ? Number(row.began) : undefined;
}

function secondsBetween(beganMs: number, endedAt: string): number {
  return Math.max(0, (Date.parse(endedAt) - beganMs) / 1000);
}

/**
 * The store a runtime uses: appends timed, and every committed event counted (recordCommitted)
 * before `afterCommit` publishes it. The outbox relay publishes without coming here, so an event
 * is counted once even when a crash leaves its publication to the relay.
 */
export function measuredStore(
  db: Kysely<EventStoreDatabase>,
  metrics: FlexMetrics,
  logger: Pick<Logger, 'warn'>,
  options: EventStoreOptions,
): EventStore {
  const onError = (error: unknown) => logger.warn('a metric of committed events was not recorded', { error });
  const beginnings = new Beginnings();
  return new TimedEventStore(
    db,
    metrics,
    {
      ...options,
      afterCommit: (events) => {
        recordCommitted(metrics, db, events, beginnings, onError);
        return options.afterCommit?.(events);
      },
    },
    beginnings,
  );
}
