import type { CapabilityRegistration, DiagnosticsBundle } from '@flex/contracts';
import type { EventStoreDatabase } from '@flex/event-store';
import type { RunState } from '@flex/run-model';
import type { Kysely, Selectable } from 'kysely';
import type { ReadModelDatabase, RunsTable } from './read-models.table';

export interface RunSummary {
  runId: string;
  status: string;
  objective: string;
  planVersion: number;
  satisfactionScore: number | null;
  observedSatisfaction: number | null;
  /** Why the run failed; `diagnostics` when it failed for planning or proof reasons. */
  failure: { code: string; reason: string; diagnostics?: DiagnosticsBundle } | null;
  createdAt: string;
  updatedAt: string;
  lastEventType: string;
}

/** One accepted plan version with the validator's findings and the hash of the registry it was drafted over. */
export interface PlanVersionView {
  version: number;
  planHash: string;
  status: string;
  satisfactionScore: number | null;
  diagnostics: DiagnosticsBundle | null;
  registryHash: string | null;
  createdAt: string;
  plan: unknown;
}

export interface RunDetail {
  run: RunSummary & { owner: string };
  output: { output: Record<string, unknown>; planVersion: number; completedAt: string } | null;
  planVersions: Array<PlanVersionView>;
  nodes: Array<{
    nodeId: string;
    kind: string;
    capabilityId: string | null;
    status: string;
    attempt: number;
    output: unknown;
    error: unknown;
    updatedAt: string;
  }>;
  hitlRequests: Array<{
    requestId: string;
    nodeId: string | null;
    /**
     * `pending`; `decided` (while the run is paused: takes effect on resume); `resolved` (in effect);
     * `cancelled` (closed with its run, which failed or was cancelled, before it took effect).
     */
    status: string;
    rationale: string | null;
    decision: string | null;
    createdAt: string;
    /** When the request got its status, if it is no longer pending. */
    resolvedAt: string | null;
  }>;
}

const iso = (d: Date | string) => (d instanceof Date ? d.toISOString() : new Date(d).toISOString());
/** jsonb comes back parsed; a driver that hands it over as text gets it parsed here. */
const json = <T>(v: T | string): T => (typeof v === 'string' ? JSON.parse(v) : v);

/** The read models' tables, added to the shared database's (types only: the same connection). */
const readModels = (db: Kysely<EventStoreDatabase>) => db.withTables<ReadModelDatabase>();

function toSummary(row: Selectable<RunsTable>): RunSummary {
  return {
    runId: row.run_id,
    status: row.status,
    objective: row.objective,
    planVersion: row.plan_version,
    satisfactionScore: row.satisfaction_score,
    observedSatisfaction: row.observed_satisfaction,
    failure: failureOf(row),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    lastEventType: row.last_event_type,
  };
}

function failureOf(row: Selectable<RunsTable>): RunSummary['failure'] {
  if (!row.failure_code) return null;
  const diagnostics = row.failure_diagnostics ? json(row.failure_diagnostics) : undefined;
  // run_failed always carries a reason: the column is null only while a run has not failed.
  const reason = row.failure_reason ?? '';
  return { code: row.failure_code, reason, ...(diagnostics ? { diagnostics } : {}) };
}

/** Newest first; `owner` restricts to one principal's runs (a client sees only its own). */
export async function listRuns(
  db: Kysely<EventStoreDatabase>,
  options: { owner?: string; limit: number; status?: string },
): Promise<RunSummary[]> {
  let query = readModels(db)
    .selectFrom('runs')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('run_id')
    .limit(options.limit);
  if (options.owner) query = query.where('owner', '=', options.owner);
  if (options.status) query = query.where('status', '=', options.status);
  return (await query.execute()).map(toSummary);
}

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

export async function getRunDetail(
  db: Kysely<EventStoreDatabase>,
  runId: string,
): Promise<RunDetail | undefined> {
  const rm = readModels(db);
  const row = await rm.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (!row) return undefined;
  const [output, versions, nodes, hitl] = await Promise.all([
    rm.selectFrom('run_outputs').selectAll().where('run_id', '=', runId).executeTakeFirst(),
    rm.selectFrom('plan_versions').selectAll().where('run_id', '=', runId).orderBy('version').execute(),
    rm.selectFrom('plan_nodes').selectAll().where('run_id', '=', runId).orderBy('node_id').execute(),
    rm.selectFrom('hitl_requests').selectAll().where('run_id', '=', runId).orderBy('created_at').execute(),
  ]);
  return {
    run: { ...toSummary(row), owner: row.owner },
    output: output
      ? {
          output: json(output.output),
          planVersion: output.plan_version,
          completedAt: iso(output.completed_at),
        }
      : null,
    planVersions: versions.map((v) => ({
      version: v.version,
      planHash: v.plan_hash,
      status: v.status,
      satisfactionScore: v.satisfaction_score,
      diagnostics: v.diagnostics ? json(v.diagnostics) : null,
      registryHash: v.registry_hash,
      createdAt: iso(v.created_at),
      plan: json(v.plan),
    })),
    nodes: nodes.map((n) => ({
      nodeId: n.node_id,
      kind: n.kind,
      capabilityId: n.capability_id,
      status: n.status,
      attempt: n.attempt,
      output: json(n.output),
      error: json(n.error),
      updatedAt: iso(n.updated_at),
    })),
    hitlRequests: hitl.map((h) => ({
      requestId: h.request_id,
      nodeId: h.node_id,
      status: h.status,
      rationale: h.rationale,
      decision: h.decision,
      createdAt: iso(h.created_at),
      resolvedAt: h.resolved_at ? iso(h.resolved_at) : null,
    })),
  };
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
