import { runStreamId, type CapabilityRegistration } from '@flex/contracts';
import type { EventStoreDatabase } from '@flex/event-store';
import type { RunState } from '@flex/run-model';
import { sql, type Kysely } from 'kysely';
import { iso, json, readModels } from './query-rows';
import { RUNS_PROJECTION } from './runs.projection';

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

/**
 * At least as many as `owner`'s working runs once the runs read model has caught up with everything
 * committed, without catching it up: the working runs it shows, plus every run of `owner` it does not
 * show working that has events past its checkpoint (a run's status follows only its own stream, so
 * only those can have become working meanwhile). One statement, so the rows and the checkpoint are
 * of one snapshot; a run's owner is its row's, or its `start`'s for a run the model has not seen.
 * Equal to countWorkingRuns when the model stands at the head. Below a limit, the limit holds.
 */
export async function workingRunsAtMost(db: Kysely<EventStoreDatabase>, owner: string): Promise<number> {
  const prefix = runStreamId('');
  const working = sql.join([...WORKING]);
  const { rows } = await sql<{ bound: string | number }>`
    with cp as (
      select coalesce((select transaction_id from checkpoints where name = ${RUNS_PROJECTION}), '0'::xid8) as tx,
             coalesce((select position from checkpoints where name = ${RUNS_PROJECTION}), 0) as pos
    )
    select
      (select count(*) from runs where owner = ${owner} and status in (${working}))
      + (select count(distinct e.stream_id)
           from cp
           join events e on (e.transaction_id, e.position) > (cp.tx, cp.pos)
           left join runs r on r.run_id = substr(e.stream_id, ${prefix.length + 1})
          where e.stream_id like ${`${prefix}%`}
            and (r.run_id is null or r.status not in (${working}))
            and coalesce(
                  r.owner,
                  (select s.payload->'owner'->>'principal' from events s
                    where s.stream_id = e.stream_id and s.version = 1)
                ) = ${owner}
        ) as bound`.execute(db);
  return Number(rows[0]?.bound ?? 0);
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
