import { sql } from 'kysely';
import type { Executor } from './read';
import { toPosition } from './rows';

/** Large IN lists are split so no statement nears the protocol's parameter limit. */
const CHUNK = 1000;

export interface ClaimOptions {
  minAgeMs: number;
  batchSize: number;
  leaseMs: number;
  /** Only events of these types (a process may be allowed to publish no others). Default: any. */
  types?: readonly string[];
}

/**
 * Leases the oldest unclaimed outbox rows older than `minAgeMs` (younger ones are still being
 * published by their appender's afterCommit). SKIP LOCKED lets relay instances claim disjoint
 * batches; the lease means a relay that dies mid-publish only delays its batch.
 */
export async function claimOutbox(db: Executor, options: ClaimOptions): Promise<number[]> {
  const rows = await db
    .updateTable('outbox')
    .set({ claimed_until: sql<Date>`now() + ${options.leaseMs}::integer * interval '1 millisecond'` })
    .where('position', 'in', (eb) =>
      eb
        .selectFrom('outbox')
        .select('position')
        .where(sql<boolean>`created_at <= now() - ${options.minAgeMs}::integer * interval '1 millisecond'`)
        .where((w) => w.or([w('claimed_until', 'is', null), w('claimed_until', '<', sql<Date>`now()`)]))
        // Per outbox row, one lookup by the events' primary key: cheap however long the log is.
        .$if(options.types !== undefined, (q) =>
          q.where(({ exists, selectFrom }) =>
            exists(
              selectFrom('events')
                .select('events.position')
                .whereRef('events.position', '=', 'outbox.position')
                .where('events.type', 'in', [...(options.types ?? [])]),
            ),
          ),
        )
        .orderBy('position')
        .limit(options.batchSize)
        .forUpdate()
        .skipLocked(),
    )
    .returning('position')
    .execute();
  return rows.map((row) => toPosition(row.position)).sort((a, b) => a - b);
}

export async function deleteOutbox(db: Executor, positions: readonly number[]): Promise<void> {
  for (let i = 0; i < positions.length; i += CHUNK) {
    await db
      .deleteFrom('outbox')
      .where('position', 'in', positions.slice(i, i + CHUNK))
      .execute();
  }
}

/** Gives a claimed batch back at once after a failed publish, instead of waiting out the lease. */
export async function releaseOutbox(db: Executor, positions: readonly number[]): Promise<void> {
  if (positions.length === 0) return;
  await db
    .updateTable('outbox')
    .set({ claimed_until: null })
    .where('position', 'in', [...positions])
    .execute();
}

export async function countOutbox(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
