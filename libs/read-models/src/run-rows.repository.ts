import type { StoredEvent } from '@flex/event-store';
import { isTerminal, payloadOf, type RunState, type StartedRun } from '@flex/run-model';
import type { RunRowWrites, RunSet } from './run-rows.batch';
import {
  hitlColumns,
  pendingNodeIds,
  nodeColumns,
  runColumns,
  sameHitlColumns,
  sameNodeColumns,
  shownNodes,
} from './run-rows';

/**
 * Brings the run's rows from what `before` says to what `after` says, `event` being the one folded
 * between them. Only what changed is written: the fold keeps an unchanged node or request the same
 * object, so a reference check skips it, and a changed object whose row reads the same is skipped
 * too (its `updated_at` / `resolved_at` stay the time of the event that last changed the row).
 * The writes are gathered into `db` (RunRowWrites), which writes a batch's at once.
 */
export function writeRunRows(
  db: RunRowWrites,
  runId: string,
  before: RunState,
  after: RunState,
  event: StoredEvent,
): void {
  if (after.status === 'none') return;
  if (before.status === 'none') insertRun(db, runId, after, event);
  else updateRun(db, runId, before, after, event);
  if (before.status !== 'none' && !isTerminal(before)) recordPlanVersion(db, runId, after, event);
  writeNodes(db, runId, before, after, event.timestamp);
  writeHitlRequests(db, runId, before, after, event);
  if (after.status === 'completed' && before.status !== 'completed') {
    db.insertOutput({
      run_id: runId,
      output: JSON.stringify(after.output),
      plan_version: after.planVersion,
      completed_at: event.timestamp,
    });
  }
}

/** What every event of a run records on its row, besides its state. */
const position = (event: StoredEvent) => ({
  updated_at: event.timestamp,
  last_position: event.position,
  last_event_type: event.type,
});

/** The run's row, at its `start`: written whole (a leftover row of the same id is overwritten). */
function insertRun(db: RunRowWrites, runId: string, run: StartedRun, event: StoredEvent) {
  db.insertRun({
    run_id: runId,
    owner: run.owner.principal,
    owner_role: run.owner.role,
    objective: run.envelope.objective,
    envelope: JSON.stringify(run.envelope),
    ...runColumns(run),
    observed_satisfaction: null,
    failure_diagnostics: null,
    created_at: event.timestamp,
    ...position(event),
  });
}

function updateRun(
  db: RunRowWrites,
  runId: string,
  before: StartedRun,
  after: StartedRun,
  event: StoredEvent,
) {
  // Built in place, not spread together: this runs for every event of every run.
  const set: RunSet = runColumns(after);
  Object.assign(set, endedBy(before, after, event));
  set.updated_at = event.timestamp;
  set.last_position = event.position;
  set.last_event_type = event.type;
  db.updateRun(runId, set);
}

/** What the event that ended the run says beyond the state: the caller's satisfaction, the failure's findings. */
function endedBy(before: StartedRun, after: StartedRun, event: StoredEvent) {
  if (isTerminal(before)) return {};
  if (after.status === 'completed' && event.type === 'complete')
    return { observed_satisfaction: payloadOf(event, 'complete').observedSatisfaction ?? null };
  if (after.status === 'failed' && event.type === 'run_failed') {
    const diagnostics = payloadOf(event, 'run_failed').diagnostics;
    return { failure_diagnostics: diagnostics ? JSON.stringify(diagnostics) : null };
  }
  return {};
}

/**
 * A plan version accepted by a run still going: a record of that event (one row per version), with
 * the nodes it had yet to run once accepted (a replan keeps the completed ones). The plan itself is
 * not copied: the row keeps the event's position, and the plan is read from the event when shown.
 */
function recordPlanVersion(db: RunRowWrites, runId: string, after: StartedRun, event: StoredEvent) {
  const accepted = acceptedPlan(event);
  if (!accepted) return;
  const { plan, version, diagnostics } = accepted;
  db.insertPlanVersion({
    run_id: runId,
    version,
    event_position: event.position,
    plan_hash: accepted.planHash,
    status: diagnostics.status,
    satisfaction_score: diagnostics.satisfactionScore,
    diagnostics: JSON.stringify(diagnostics),
    registry_hash: accepted.registry.hash,
    pending_node_ids: JSON.stringify(pendingNodeIds(plan, after)),
    created_at: event.timestamp,
  });
}

function acceptedPlan(event: StoredEvent) {
  switch (event.type) {
    case 'plan_generated': {
      const p = payloadOf(event, 'plan_generated');
      return { ...p, version: p.planVersion };
    }
    case 'plan_updated':
      return payloadOf(event, 'plan_updated');
    default:
      return undefined;
  }
}

function writeNodes(db: RunRowWrites, runId: string, before: RunState, after: StartedRun, at: string) {
  if (before.status !== 'none' && before.plan === after.plan) {
    if (before.nodes !== after.nodes) writeNodesOfPlan(db, runId, before, after, at);
    return;
  }
  const was = shownNodes(before);
  const now = shownNodes(after);
  for (const [nodeId, shown] of now) {
    const prior = was.get(nodeId);
    if (prior && prior.node === shown.node && prior.planNode === shown.planNode) continue;
    const columns = nodeColumns(shown);
    if (prior && sameNodeColumns(nodeColumns(prior), columns)) continue;
    db.upsertNode({ run_id: runId, node_id: nodeId, ...columns, updated_at: at });
  }
  for (const nodeId of was.keys()) if (!now.has(nodeId)) db.deleteNode(runId, nodeId);
}

/**
 * writeNodes when the plan is the same before and after (most events): the rows shown are the plan's
 * nodes with a state, so one pass over the plan finds those whose state changed, without the maps.
 */
function writeNodesOfPlan(
  db: RunRowWrites,
  runId: string,
  before: StartedRun,
  after: StartedRun,
  at: string,
) {
  for (const planNode of after.plan?.nodes ?? []) {
    const was = before.nodes[planNode.id];
    const now = after.nodes[planNode.id];
    if (was === now) continue;
    if (!now) {
      db.deleteNode(runId, planNode.id);
      continue;
    }
    const columns = nodeColumns({ planNode, node: now });
    if (was && sameNodeColumns(nodeColumns({ planNode, node: was }), columns)) continue;
    db.upsertNode({ run_id: runId, node_id: planNode.id, ...columns, updated_at: at });
  }
}

function writeHitlRequests(
  db: RunRowWrites,
  runId: string,
  before: RunState,
  after: StartedRun,
  event: StoredEvent,
) {
  const was = before.status === 'none' ? {} : before.hitl;
  if (was === after.hitl) return;
  for (const [requestId, request] of Object.entries(after.hitl)) {
    const previous = was[requestId];
    if (previous === request) continue;
    const columns = hitlColumns(request);
    if (previous && sameHitlColumns(hitlColumns(previous), columns)) continue;
    const resolved_at = columns.status === 'pending' ? null : event.timestamp;
    db.upsertHitl({
      run_id: runId,
      request_id: requestId,
      ...columns,
      rationale: rationaleOf(event, requestId),
      created_at: event.timestamp,
      resolved_at,
    });
  }
}

/** Why the operator is asked: said by the `hitl_request` that raised the request, not kept in the state. */
function rationaleOf(event: StoredEvent, requestId: string): string | null {
  if (event.type !== 'hitl_request') return null;
  const p = payloadOf(event, 'hitl_request');
  return p.requestId === requestId ? p.rationale : null;
}
