import type { EventStoreDatabase } from '@flex/event-store';
import { sql, type Kysely } from 'kysely';

/** Default heartbeat interval when a registration names none (spec 003 §5.6: timeout = 3 × interval). */
export const DEFAULT_HEARTBEAT_INTERVAL_S = 30;

export interface StaleInstance {
  capabilityId: string;
  instanceId: string;
  lastSeenAt: string;
  timeoutSeconds: number;
}

export interface Touch {
  /** The instance's status in the read model; undefined when the registry does not know it. */
  status?: string;
  /** The previous heartbeat was older than the timeout: this one ends a silence, so the instance may have been expired. */
  endsSilence: boolean;
}

/*
 * Each function takes the runtime's shared database (typed with the store's tables) and runs raw
 * SQL over the capabilities read model, capability_liveness and the log.
 */

/** The instance's heartbeat timeout in seconds, from its registration in `capabilities c`. */
const timeoutSeconds = sql`coalesce((c.registration->'heartbeat'->>'timeoutSeconds')::int,
  3 * coalesce((c.registration->'heartbeat'->>'intervalSeconds')::int, ${DEFAULT_HEARTBEAT_INTERVAL_S}::int))`;

/**
 * Liveness is not history: a heartbeat moves `last_seen_at` here, outside the event log (only for
 * instances the read model knows, so stray heartbeats leave nothing behind; until its first touch
 * an instance counts as seen when it registered). In the same round trip it reads the instance's status and whether this heartbeat ends a silence longer
 * than its timeout, so a heartbeat from a live instance costs one query and no stream read.
 */
export async function touchLiveness(
  db: Kysely<EventStoreDatabase>,
  capabilityId: string,
  instanceId: string,
  at: Date,
): Promise<Touch> {
  const result = await sql<{ status: string; ends_silence: boolean }>`with previous as (
      select last_seen_at from capability_liveness where capability_id = ${capabilityId} and instance_id = ${instanceId}
    ), touched as (
      insert into capability_liveness (capability_id, instance_id, last_seen_at)
      select c.capability_id, c.instance_id, ${at.toISOString()}::timestamptz from capabilities c where c.capability_id = ${capabilityId} and c.instance_id = ${instanceId}
      on conflict (capability_id, instance_id) do update set last_seen_at = greatest(capability_liveness.last_seen_at, excluded.last_seen_at)
    )
    select c.status, coalesce((select last_seen_at from previous), c.updated_at) < ${at.toISOString()}::timestamptz - make_interval(secs => ${timeoutSeconds}) as ends_silence
    from capabilities c where c.capability_id = ${capabilityId} and c.instance_id = ${instanceId}`.execute(
    db,
  );
  const row = result.rows[0];
  return { status: row?.status, endsSilence: row?.ends_silence === true };
}

/**
 * Active instances whose last heartbeat is older than their timeout at `now`, in one query: the
 * timeout comes from each registration's `heartbeat` (`timeoutSeconds`, else 3 × `intervalSeconds`,
 * else 3 × 30 s). Only stale rows come back, so a sweep costs one query however many are alive.
 */
export async function findStaleInstances(
  db: Kysely<EventStoreDatabase>,
  now: Date,
): Promise<StaleInstance[]> {
  const result = await sql<{
    capability_id: string;
    instance_id: string;
    last_seen_at: Date | string;
    timeout_s: number;
  }>`
    with live as (
      select c.capability_id, c.instance_id, coalesce(l.last_seen_at, c.updated_at) as last_seen_at, ${timeoutSeconds} as timeout_s
      from capabilities c
      left join capability_liveness l on l.capability_id = c.capability_id and l.instance_id = c.instance_id
      where c.status = 'active'
    )
    select capability_id, instance_id, last_seen_at, timeout_s from live
    where last_seen_at < ${now.toISOString()}::timestamptz - make_interval(secs => timeout_s)
    order by capability_id, instance_id`.execute(db);
  return result.rows.map((r) => ({
    capabilityId: r.capability_id,
    instanceId: r.instance_id,
    lastSeenAt: new Date(r.last_seen_at).toISOString(),
    timeoutSeconds: Number(r.timeout_s),
  }));
}

/** The instance's last heartbeat, to re-check around an expiry (a heartbeat may land meanwhile). */
export async function lastSeenAt(
  db: Kysely<EventStoreDatabase>,
  capabilityId: string,
  instanceId: string,
): Promise<Date | undefined> {
  const result = await sql<{
    last_seen_at: Date | string;
  }>`select last_seen_at from capability_liveness where capability_id = ${capabilityId} and instance_id = ${instanceId}`.execute(
    db,
  );
  const row = result.rows[0];
  return row ? new Date(row.last_seen_at) : undefined;
}
