import type { DiagnosticsBundle, EventPayload, PlanGraph, RegistrySnapshot } from '@flex/contracts';
import type { EventStoreDatabase, Projection, StoredEvent } from '@flex/event-store';
import type { Transaction } from 'kysely';
import type { ReadModelDatabase } from './read-models.table';

/** The projection's transaction with the read models' tables added (types only: the same transaction). */
type Trx = Transaction<EventStoreDatabase & ReadModelDatabase>;
const RUN_PREFIX = 'run-';

/** runs, plan_versions, plan_nodes, run_outputs and hitl_requests, from the run streams. */
export const runsProjection: Projection = {
  name: 'runs',
  async apply(trx, event) {
    if (!event.streamId.startsWith(RUN_PREFIX)) return;
    const db = trx.withTables<ReadModelDatabase>();
    const runId = event.streamId.slice(RUN_PREFIX.length);
    if (event.type === 'start') await insertRun(db, runId, event);
    await APPLY[event.type]?.(db, runId, event);
    await db
      .updateTable('runs')
      .set({ updated_at: event.timestamp, last_position: event.position, last_event_type: event.type })
      .where('run_id', '=', runId)
      .execute();
  },
  async reset(trx) {
    const db = trx.withTables<ReadModelDatabase>();
    for (const table of ['hitl_requests', 'run_outputs', 'plan_nodes', 'plan_versions', 'runs'] as const)
      await db.deleteFrom(table).execute();
  },
};

type Apply = (db: Trx, runId: string, event: StoredEvent) => Promise<void>;

const APPLY: Record<string, Apply> = {
  plan_generated: async (db, runId, event) => {
    const p = event.payload as EventPayload<'plan_generated'>;
    await recordPlan(db, runId, { ...p, version: p.planVersion }, event.timestamp);
  },
  plan_updated: async (db, runId, event) => {
    const p = event.payload as EventPayload<'plan_updated'>;
    await recordPlan(db, runId, p, event.timestamp);
  },
  node_start: async (db, runId, event) => {
    const p = event.payload as EventPayload<'node_start'>;
    await setNode(
      db,
      runId,
      p.nodeId,
      { status: 'running', attempt: p.attempt, error: null },
      event.timestamp,
    );
  },
  node_complete: async (db, runId, event) => {
    const p = event.payload as EventPayload<'node_complete'>;
    await setNode(
      db,
      runId,
      p.nodeId,
      { status: 'completed', attempt: p.attempt, output: JSON.stringify(p.output), error: null },
      event.timestamp,
    );
  },
  node_error: async (db, runId, event) => {
    const p = event.payload as EventPayload<'node_error'>;
    await setNode(
      db,
      runId,
      p.nodeId,
      { status: p.willRetry ? 'retry_wait' : 'failed', attempt: p.attempt, error: JSON.stringify(p.error) },
      event.timestamp,
    );
  },
  hitl_request: async (db, runId, event) => {
    const p = event.payload as EventPayload<'hitl_request'>;
    await db
      .insertInto('hitl_requests')
      .values({
        run_id: runId,
        request_id: p.requestId,
        node_id: p.nodeId ?? null,
        status: 'pending',
        rationale: p.rationale,
        decision: null,
        created_at: event.timestamp,
        resolved_at: null,
      })
      .onConflict((oc) => oc.columns(['run_id', 'request_id']).doNothing())
      .execute();
    // A paused run stays paused; the request waits with it.
    await db
      .updateTable('runs')
      .set({ status: 'awaiting_hitl' })
      .where('run_id', '=', runId)
      .where('status', 'in', ['running', 'planning', 'awaiting_hitl'])
      .execute();
    // An operator supplies this node's output (human capability or HITL fallback).
    if (p.nodeId && (p.mode === 'node_output' || (!p.mode && !p.policyId)))
      await setNode(db, runId, p.nodeId, { status: 'awaiting_hitl' }, event.timestamp);
  },
  hitl_resolved: async (db, runId, event) => {
    const p = event.payload as EventPayload<'hitl_resolved'>;
    await db
      .updateTable('hitl_requests')
      .set({ status: 'resolved', decision: p.decision, resolved_at: event.timestamp })
      .where('run_id', '=', runId)
      .where('request_id', '=', p.requestId)
      .execute();
    // Still waiting while another request is open; a pause is left to run_resumed.
    if (!(await hasOpenRequest(db, runId)))
      await db
        .updateTable('runs')
        .set({ status: 'running' })
        .where('run_id', '=', runId)
        .where('status', '=', 'awaiting_hitl')
        .execute();
  },
  run_paused: async (db, runId) => {
    await db.updateTable('runs').set({ status: 'paused' }).where('run_id', '=', runId).execute();
  },
  run_resumed: async (db, runId) => {
    // Back to where the pause found it: waiting for an operator if a request is still open.
    const open = await hasOpenRequest(db, runId);
    await db
      .updateTable('runs')
      .set({ status: open ? 'awaiting_hitl' : 'running' })
      .where('run_id', '=', runId)
      .where('status', '=', 'paused')
      .execute();
  },
  complete: async (db, runId, event) => {
    const p = event.payload as EventPayload<'complete'>;
    await db
      .insertInto('run_outputs')
      .values({
        run_id: runId,
        output: JSON.stringify(p.output),
        plan_version: p.planVersion,
        completed_at: event.timestamp,
      })
      .onConflict((oc) => oc.column('run_id').doNothing())
      .execute();
    await db
      .updateTable('runs')
      .set({ status: 'completed', observed_satisfaction: p.observedSatisfaction ?? null })
      .where('run_id', '=', runId)
      .execute();
  },
  run_failed: async (db, runId, event) => {
    const p = event.payload as EventPayload<'run_failed'>;
    const diagnostics = p.diagnostics ? JSON.stringify(p.diagnostics) : null;
    await db
      .updateTable('runs')
      .set({
        status: 'failed',
        failure_code: p.code,
        failure_reason: p.reason,
        failure_diagnostics: diagnostics,
      })
      .where('run_id', '=', runId)
      .execute();
  },
  run_cancelled: async (db, runId, event) => {
    // Terminal: the requests still waiting for a human are closed with the run.
    await db
      .updateTable('hitl_requests')
      .set({ status: 'cancelled', resolved_at: event.timestamp })
      .where('run_id', '=', runId)
      .where('status', '=', 'pending')
      .execute();
    await db.updateTable('runs').set({ status: 'cancelled' }).where('run_id', '=', runId).execute();
  },
};

async function insertRun(db: Trx, runId: string, event: StoredEvent): Promise<void> {
  const p = event.payload as EventPayload<'start'>;
  await db
    .insertInto('runs')
    .values({
      run_id: runId,
      owner: p.owner.principal,
      owner_role: p.owner.role,
      status: 'planning',
      objective: p.envelope.objective,
      plan_version: 0,
      satisfaction_score: null,
      observed_satisfaction: null,
      failure_code: null,
      failure_reason: null,
      failure_diagnostics: null,
      created_at: event.timestamp,
      updated_at: event.timestamp,
      last_position: event.position,
      last_event_type: event.type,
    })
    .onConflict((oc) => oc.column('run_id').doNothing())
    .execute();
}

/** What a plan version records: the plan, its hash, the validator's findings and the planner's registry. */
interface AcceptedPlan {
  plan: PlanGraph;
  version: number;
  planHash: string;
  diagnostics: DiagnosticsBundle;
  registry: RegistrySnapshot;
}

async function recordPlan(db: Trx, runId: string, accepted: AcceptedPlan, at: string) {
  const { plan, version, diagnostics } = accepted;
  const score = diagnostics.satisfactionScore;
  await db
    .insertInto('plan_versions')
    .values({
      run_id: runId,
      version,
      plan: JSON.stringify(plan),
      plan_hash: accepted.planHash,
      status: diagnostics.status,
      satisfaction_score: score,
      diagnostics: JSON.stringify(diagnostics),
      registry_hash: accepted.registry.hash,
      created_at: at,
    })
    .onConflict((oc) => oc.columns(['run_id', 'version']).doNothing())
    .execute();
  await db
    .updateTable('runs')
    .set({ plan_version: version, satisfaction_score: score })
    .where('run_id', '=', runId)
    .execute();
  // The first plan starts the run; a new version leaves a paused or waiting run as it is (docs/lifecycle.md).
  await db
    .updateTable('runs')
    .set({ status: 'running' })
    .where('run_id', '=', runId)
    .where('status', '=', 'planning')
    .execute();
  for (const node of plan.nodes) {
    await db
      .insertInto('plan_nodes')
      .values({
        run_id: runId,
        node_id: node.id,
        kind: node.kind,
        capability_id: node.capabilityId ?? null,
        status: 'pending',
        attempt: 0,
        output: null,
        error: null,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc
          .columns(['run_id', 'node_id'])
          .doUpdateSet({ kind: node.kind, capability_id: node.capabilityId ?? null }),
      )
      .execute();
  }
}

async function setNode(db: Trx, runId: string, nodeId: string, values: Record<string, unknown>, at: string) {
  await db
    .updateTable('plan_nodes')
    .set({ ...values, updated_at: at })
    .where('run_id', '=', runId)
    .where('node_id', '=', nodeId)
    .execute();
}

/** True while some HITL request of the run is still pending in the read model. */
async function hasOpenRequest(db: Trx, runId: string): Promise<boolean> {
  const open = await db
    .selectFrom('hitl_requests')
    .select('request_id')
    .where('run_id', '=', runId)
    .where('status', '=', 'pending')
    .limit(1)
    .execute();
  return open.length > 0;
}
