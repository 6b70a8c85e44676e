import type { RunStatus, RunSummary } from '@flex/contracts';
import type { EventStoreDatabase } from '@flex/event-store';
import type { Kysely, Selectable } from 'kysely';
import type { ReadModelDatabase, RunsTable } from './read-models.table';

/** A timestamp column as the API shows it (drivers hand back a Date, or text). */
export const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : new Date(d).toISOString());

/** jsonb comes back parsed; a driver that hands it over as text gets it parsed here. */
export const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** The read models' tables, added to the shared database's (types only: the same connection). */
export const readModels = (db: Kysely<EventStoreDatabase>) => db.withTables<ReadModelDatabase>();

export function toSummary(row: Selectable<RunsTable>): RunSummary {
  return {
    runId: row.run_id,
    // The column holds the fold's status (runColumns): one of RUN_STATUSES.
    status: row.status as RunStatus,
    objective: row.objective,
    planVersion: row.plan_version,
    satisfactionScore: row.satisfaction_score,
    observedSatisfaction: row.observed_satisfaction,
    failure: failureOf(row),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastEventType: row.last_event_type,
    lastPosition: Number(row.last_position),
  };
}

function failureOf(row: Selectable<RunsTable>): RunSummary['failure'] {
  if (!row.failure_code) return null;
  const diagnostics = row.failure_diagnostics ? json(row.failure_diagnostics) : undefined;
  // run_failed always carries a reason: the column is null only while a run has not failed.
  const reason = row.failure_reason ?? '';
  return { code: row.failure_code, reason, ...(diagnostics ? { diagnostics } : {}) };
}
