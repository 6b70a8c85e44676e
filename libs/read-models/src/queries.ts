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
 * The events past the runs model's checkpoint that workingRunsAtMost looks at, at most: a model
 * further behind than that is caught up and counted exactly instead. It also keeps the statement's
 * estimated cost below Postgres's JIT threshold (jit_above_cost): the checkpoint is not known when
 * the statement is planned, so an unbounded look was estimated at a third of the log, and compiling
 * it took 400 ms of every start.
 */
const TAIL_LOOKED_AT = 1000;

/**
 * At least as many as `owner`'s working runs once the runs read model has caught up with everything
 * committed, without catching it up: the working runs it shows, plus every run of `owner` it does not
 * show working that has events past its checkpoint (a run's status follows only its own stream, so
 * only those can have become working meanwhile). One statement, so the rows and the checkpoint are
 * of one snapshot; a run's owner is its row's, or its `start`'s for a run the model has not seen.
 * Equal to countWorkingRuns when the model stands at the head; Infinity when more than
 * TAIL_LOOKED_AT events are past its checkpoint. Below a limit, the limit holds.
 *
 * Its cost does not grow with history: the working runs come from a partial index
 * (runs_working_owner), and each run past the checkpoint is looked up by its key (at 100,000 runs,
 * a join over every run took 60 ms a start; measured with EXPLAIN ANALYZE on Postgres 15).
 */
export async function workingRunsAtMost(db: Kysely<EventStoreDatabase>, owner: string): Promise<number> {
  const prefix = runStreamId('');
  // Literals, so that the partial index's predicate is seen to hold whatever the plan.
  const working = sql.join(WORKING.map((status) => sql.lit(status)));
  const runOf = sql`substr(t.stream_id, ${sql.lit(prefix.length + 1)})`;
  const { rows } = await sql<{ working: string | number; seen: string | number; more: string | number }>`
    with cp as (
      select coalesce((select transaction_id from checkpoints where name = ${RUNS_PROJECTION}), '0'::xid8) as tx,
             coalesce((select position from checkpoints where name = ${RUNS_PROJECTION}), 0) as pos
    ), tail as (
      select e.stream_id from cp cross join lateral (
        select stream_id from events e where (e.transaction_id, e.position) > (cp.tx, cp.pos)
        order by e.transaction_id, e.position limit ${sql.lit(TAIL_LOOKED_AT + 1)}) e
    ), streams as (
      select distinct t.stream_id from tail t where t.stream_id like ${`${prefix}%`}
    )
    select
      (select count(*) from runs where owner = ${owner} and status in (${working})) as working,
      (select count(*) from tail) as seen,
      (select count(*) from streams t
        left join runs r on r.run_id = ${runOf}
        where not coalesce(r.status in (${working}), false)
          and coalesce(
                r.owner,
                (select s.payload->'owner'->>'principal' from events s
                  where s.stream_id = t.stream_id and s.version = 1)
              ) = ${owner}
      ) as more`.execute(db);
  const row = rows[0];
  if (Number(row.seen) > TAIL_LOOKED_AT) return Number.POSITIVE_INFINITY;
  return Number(row.working) + Number(row.more);
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
