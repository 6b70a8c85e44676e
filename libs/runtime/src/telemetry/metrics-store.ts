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

/** An EventStore that times every append (`flex_event_store_append_duration_seconds`). */
export class TimedEventStore extends EventStore {
  readonly #metrics: FlexMetrics;

  constructor(db: Kysely<EventStoreDatabase>, metrics: FlexMetrics, options: EventStoreOptions) {
    super(db, options);
    this.#metrics = metrics;
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
 * Counts what committed events stand for (see measuresOf), in the process whose append committed
 * them: call it from the store's afterCommit, which sees each event once, duplicates excluded.
 * Durations that began earlier in the stream are looked up and observed in the background; a failed
 * lookup is reported to `onError` and costs only that observation.
 */
export function recordCommitted(
  metrics: FlexMetrics,
  db: Kysely<EventStoreDatabase>,
  events: readonly StoredEvent[],
  onError: (error: unknown) => void,
): void {
  for (const event of events) {
    const { increments, timings } = measuresOf(event);
    for (const increment of increments) metrics.count(increment);
    for (const timing of timings)
      beganAt(db, timing)
        .then((began) => {
          if (began) metrics.observe(timing, secondsBetween(began, timing.endedAt));
        })
        .catch(onError);
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
  return new TimedEventStore(db, metrics, {
    ...options,
    afterCommit: (events) => {
      recordCommitted(metrics, db, events, onError);
      return options.afterCommit?.(events);
    },
  });
}
