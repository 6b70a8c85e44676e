import type { Executor } from './read';
import { toIsoString, toPosition } from './rows';
import type { StoredEvent } from './types';

/** Same shape as the bus's DeadLetter, so the bus's onDeadLetter can hand its argument straight in. */
export interface DeadLetterRecord {
  consumer: string;
  event: StoredEvent;
  deliveryCount: number;
  reason: string;
}

export interface StoredDeadLetter extends DeadLetterRecord {
  id: number;
  createdAt: string;
}

export interface ListDeadLettersOptions {
  consumer?: string;
  limit?: number;
}

/** Records a delivery a consumer gave up on; recording the same (consumer, event) again is a no-op. */
export async function recordDeadLetter(db: Executor, deadLetter: DeadLetterRecord): Promise<void> {
  const { consumer, event, deliveryCount, reason } = deadLetter;
  await db
    .insertInto('dead_letters')
    .values({
      consumer,
      event_id: event.id,
      stream_id: event.streamId,
      event_type: event.type,
      event_position: event.position,
      delivery_count: deliveryCount,
      reason,
      event: JSON.stringify(event),
    })
    .onConflict((oc) => oc.columns(['consumer', 'event_id']).doNothing())
    .execute();
}

/** Oldest first. */
export async function listDeadLetters(
  db: Executor,
  options: ListDeadLettersOptions = {},
): Promise<StoredDeadLetter[]> {
  let query = db
    .selectFrom('dead_letters')
    .select(['id', 'consumer', 'event', 'event_position', 'delivery_count', 'reason', 'created_at'])
    .orderBy('id');
  if (options.consumer !== undefined) query = query.where('consumer', '=', options.consumer);
  if (options.limit !== undefined) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => ({
    id: toPosition(row.id),
    consumer: row.consumer,
    event: { ...row.event, position: toPosition(row.event_position) },
    deliveryCount: row.delivery_count,
    reason: row.reason,
    createdAt: toIsoString(row.created_at),
  }));
}
