import type { CapabilityRegistration } from '@flex/contracts';
import type { EventStoreDatabase } from '@flex/event-store';
import type { RunState } from '@flex/run-model';
import type { Kysely } from 'kysely';
import { iso, json, readModels } from './query-rows';

/** The statuses of a run that is using the system (not resting paused or on a human, not ended). */
const WORKING: ReadonlyArray<RunState['status']> = ['planning', 'running'];

/**
 * How many of `owner`'s runs are working: planning or running. A run resting paused, or waiting
 * only for a human, holds no capacity and is not counted; resuming it counts it again.
 */
export async function countWorkingRuns(db: Kysely<EventStoreDatabase>, owner: string): Promise<number> {
  const row = await readModels(db)
    .selectFrom('runs')
    .select((eb) => eb.fn.countAll<string | number>().as('working'))
    .where('owner', '=', owner)
    .where('status', 'in', [...WORKING])
    .executeTakeFirst();
  return Number(row?.working ?? 0);
}

export interface CapabilityRow {
  capabilityId: string;
  instanceId: string;
  registration: CapabilityRegistration;
  status: string;
  registeredAt: string;
  updatedAt: string;
  lastSeenAt: string | null;
}

export async function listCapabilityInstances(db: Kysely<EventStoreDatabase>): Promise<CapabilityRow[]> {
  const rows = await readModels(db)
    .selectFrom('capabilities as c')
    .leftJoin('capability_liveness as l', (j) =>
      j.onRef('l.capability_id', '=', 'c.capability_id').onRef('l.instance_id', '=', 'c.instance_id'),
    )
    .select([
      'c.capability_id',
      'c.instance_id',
      'c.registration',
      'c.status',
      'c.registered_at',
      'c.updated_at',
      'l.last_seen_at',
    ])
    .orderBy('c.capability_id')
    .orderBy('c.instance_id')
    .execute();
  return rows.map((r) => ({
    capabilityId: r.capability_id,
    instanceId: r.instance_id,
    registration: json(r.registration),
    status: r.status,
    registeredAt: iso(r.registered_at),
    updatedAt: iso(r.updated_at),
    lastSeenAt: r.last_seen_at ? iso(r.last_seen_at) : null,
  }));
}
