import {
  createDatabase,
  EventStore,
  migrateToLatest,
  ProjectionRunner,
  type FlexDatabase,
  type Projection,
  type StoredEvent,
} from '@flex/event-store';
import { evolveRun, initialRunState, payloadOf, type HitlRequestState, type RunState } from '@flex/run-model';
import { createTestDatabase } from '@flex/testing';
import { readModelMigrations } from './read-models.migrations';
import type { ReadModelDatabase } from './read-models.table';

/** A migrated database (Postgres or PGlite) with a store on it. */
export interface ReadModelsDb {
  database: FlexDatabase;
  store: EventStore;
  close(): Promise<void>;
}

export async function openReadModelsDb(kind: 'postgres' | 'pglite', label: string): Promise<ReadModelsDb> {
  const testDb = kind === 'postgres' ? await createTestDatabase(label) : undefined;
  const database = await createDatabase(testDb ? { url: testDb.url, poolSize: 4 } : {});
  await migrateToLatest(database.db, readModelMigrations);
  const store = new EventStore(database.db, { logger: { warn: () => undefined, error: () => undefined } });
  return {
    database,
    store,
    close: async () => {
      await database.close();
      await testDb?.drop();
    },
  };
}

/** A runner over one projection (as `projectionsFor` runs it, with a batch size of choice). */
export function runnerFor(db: ReadModelsDb, projection: Projection, batchSize = 500): ProjectionRunner {
  return new ProjectionRunner(db.database.db, db.store, [projection], { batchSize, pollMs: 1_000 });
}

/** One run's rows, in plain values (timestamps as ISO, jsonb parsed, positions as numbers). */
export interface RunRows {
  run?: Record<string, unknown>;
  nodes: Record<string, Record<string, unknown>>;
  hitl: Record<string, Record<string, unknown>>;
  output?: Record<string, unknown>;
  planVersions: number[];
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());
const parsed = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

export async function readRunRows(db: ReadModelsDb, runId: string): Promise<RunRows> {
  const rm = db.database.db.withTables<ReadModelDatabase>();
  const run = await rm.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  const nodes = await rm.selectFrom('plan_nodes').selectAll().where('run_id', '=', runId).execute();
  const hitl = await rm.selectFrom('hitl_requests').selectAll().where('run_id', '=', runId).execute();
  const output = await rm
    .selectFrom('run_outputs')
    .selectAll()
    .where('run_id', '=', runId)
    .executeTakeFirst();
  const versions = await rm
    .selectFrom('plan_versions')
    .select('version')
    .where('run_id', '=', runId)
    .orderBy('version')
    .execute();
  return {
    run: run && {
      ...run,
      failure_diagnostics: parsed(run.failure_diagnostics),
      envelope: parsed(run.envelope),
      created_at: iso(run.created_at),
      updated_at: iso(run.updated_at),
      last_position: Number(run.last_position),
    },
    nodes: Object.fromEntries(
      nodes.map(({ run_id: _r, node_id, ...n }) => [
        node_id,
        { ...n, output: parsed(n.output), error: parsed(n.error), updated_at: iso(n.updated_at) },
      ]),
    ),
    hitl: Object.fromEntries(
      hitl.map(({ run_id: _r, request_id, ...h }) => [
        request_id,
        { ...h, created_at: iso(h.created_at), resolved_at: iso(h.resolved_at) },
      ]),
    ),
    output: output && { ...output, output: parsed(output.output), completed_at: iso(output.completed_at) },
    planVersions: versions.map((v) => v.version),
  };
}

/**
 * What the rows must say, from the run's fold alone, prefix by prefix: each row's values come from
 * the state after the last event; its time is that of the last event that changed what it reads.
 */
export function expectedRunRows(runId: string, events: readonly StoredEvent[]): RunRows {
  const rows: RunRows = { nodes: {}, hitl: {}, planVersions: [] };
  let state: RunState = initialRunState();
  for (const event of events) {
    const before = state;
    state = evolveRun(state, event);
    if (state.status === 'none') continue;
    rows.run = expectedRun(runId, rows.run, before, state, event);
    rows.nodes = expectedNodes(rows.nodes, state, event.timestamp);
    rows.hitl = expectedHitl(rows.hitl, state, event);
    if (state.status === 'completed' && before.status !== 'completed')
      rows.output = {
        run_id: runId,
        output: state.output,
        plan_version: state.planVersion,
        completed_at: event.timestamp,
      };
    const accepted = event.type === 'plan_generated' || event.type === 'plan_updated';
    if (accepted && before.status !== 'none' && !['completed', 'failed', 'cancelled'].includes(before.status))
      rows.planVersions = [...new Set([...rows.planVersions, state.planVersion])].sort((a, b) => a - b);
  }
  return rows;
}

function expectedRun(
  runId: string,
  was: Record<string, unknown> | undefined,
  before: RunState,
  state: Exclude<RunState, { status: 'none' }>,
  event: StoredEvent,
): Record<string, unknown> {
  const ended = before.status !== state.status;
  return {
    run_id: runId,
    owner: state.owner.principal,
    owner_role: state.owner.role,
    objective: state.envelope.objective,
    envelope: state.envelope,
    status: state.status,
    plan_version: state.planVersion,
    satisfaction_score: state.satisfactionScore ?? null,
    observed_satisfaction:
      ended && event.type === 'complete'
        ? (payloadOf(event, 'complete').observedSatisfaction ?? null)
        : (was?.observed_satisfaction ?? null),
    failure_code: state.status === 'failed' ? state.failure.code : null,
    failure_reason: state.status === 'failed' ? state.failure.reason : null,
    failure_diagnostics:
      ended && event.type === 'run_failed'
        ? (payloadOf(event, 'run_failed').diagnostics ?? null)
        : (was?.failure_diagnostics ?? null),
    created_at: was?.created_at ?? event.timestamp,
    updated_at: event.timestamp,
    last_position: event.position,
    last_event_type: event.type,
  };
}

function expectedNodes(
  was: RunRows['nodes'],
  state: Exclude<RunState, { status: 'none' }>,
  at: string,
): RunRows['nodes'] {
  const next: RunRows['nodes'] = {};
  for (const planNode of state.plan?.nodes ?? []) {
    const node = state.nodes[planNode.id];
    if (!node) continue;
    const values = {
      kind: planNode.kind,
      capability_id: planNode.capabilityId ?? null,
      status: node.status,
      attempt: node.attempt,
      output: node.output ?? null,
      error: node.error ?? null,
    };
    const { updated_at: since, ...previous } = was[planNode.id] ?? {};
    const same = since !== undefined && JSON.stringify(previous) === JSON.stringify(values);
    next[planNode.id] = { ...values, updated_at: same ? since : at };
  }
  return next;
}

const ROW_STATUS: Record<HitlRequestState['status'], string> = {
  pending: 'pending',
  decided: 'decided',
  resolved: 'resolved',
  closed: 'cancelled',
};

function expectedHitl(
  was: RunRows['hitl'],
  state: Exclude<RunState, { status: 'none' }>,
  event: StoredEvent,
): RunRows['hitl'] {
  const next: RunRows['hitl'] = {};
  for (const [requestId, request] of Object.entries(state.hitl)) {
    const values = {
      node_id: request.nodeId ?? null,
      status: ROW_STATUS[request.status],
      decision: request.status === 'decided' || request.status === 'resolved' ? request.decision : null,
    };
    const previous = was[requestId];
    const changed =
      !previous ||
      previous.node_id !== values.node_id ||
      previous.status !== values.status ||
      previous.decision !== values.decision;
    const raisedHere =
      event.type === 'hitl_request' && payloadOf(event, 'hitl_request').requestId === requestId;
    next[requestId] = {
      ...values,
      rationale: previous
        ? previous.rationale
        : raisedHere
          ? payloadOf(event, 'hitl_request').rationale
          : null,
      created_at: previous ? previous.created_at : event.timestamp,
      resolved_at: values.status === 'pending' ? null : changed ? event.timestamp : previous.resolved_at,
    };
  }
  return next;
}
