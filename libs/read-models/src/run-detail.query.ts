import {
  contentHash,
  type PlanGraph,
  type PlanSnapshot,
  type PlanVersionView,
  type RunDetail,
  upcastPayload,
} from '@flex/contracts';
import type { EventStoreDatabase } from '@flex/event-store';
import type { Kysely, Selectable } from 'kysely';
import { iso, json, readModels, toSummary } from './query-rows';
import type { PlanNodesTable, PlanVersionsTable, RunOutputsTable } from './read-models.table';

type NodeRow = Selectable<PlanNodesTable>;

/**
 * A run as `GET runs/:id` shows it (spec 003 §10.1), from the read models only: the run with its
 * envelope and schema hash, the output with the node each facet came from, the plan versions, the
 * latest snapshot, the node ledger and the HITL requests.
 */
export async function getRunDetail(
  db: Kysely<EventStoreDatabase>,
  runId: string,
): Promise<RunDetail | undefined> {
  const rm = readModels(db);
  const row = await rm.selectFrom('runs').selectAll().where('run_id', '=', runId).executeTakeFirst();
  if (!row) return undefined;
  const [output, versions, nodes, hitl] = await Promise.all([
    rm.selectFrom('run_outputs').selectAll().where('run_id', '=', runId).executeTakeFirst(),
    // Each version's plan is the one its event carries (the row keeps the event's position).
    rm
      .selectFrom('plan_versions')
      .innerJoin('events', 'events.position', 'plan_versions.event_position')
      .selectAll('plan_versions')
      .select(['events.type as event_type', 'events.payload as event_payload'])
      .where('plan_versions.run_id', '=', runId)
      .orderBy('plan_versions.version')
      .execute(),
    rm.selectFrom('plan_nodes').selectAll().where('run_id', '=', runId).orderBy('node_id').execute(),
    rm.selectFrom('hitl_requests').selectAll().where('run_id', '=', runId).orderBy('created_at').execute(),
  ]);
  const envelope = json(row.envelope);
  const schemaHash = contentHash(envelope.outputContract.schema);
  const planVersions = versions.map((v) => planVersionView(v, schemaHash));
  const latest = planVersions[planVersions.length - 1];
  const latestSnapshot = latest ? snapshotOf(latest, nodes) : null;
  return {
    ok: true,
    run: {
      ...toSummary(row),
      owner: row.owner,
      threadId: envelope.threadId ?? null,
      envelope,
      schemaHash,
    },
    output: output ? outputView(output, latestSnapshot) : null,
    planVersions,
    latestSnapshot,
    nodes: nodes.map((n) => ({
      nodeId: n.node_id,
      kind: n.kind,
      capabilityId: n.capability_id,
      status: n.status,
      attempt: n.attempt,
      output: n.output === null ? null : json(n.output as Record<string, unknown>),
      error: n.error === null ? null : json(n.error as Record<string, unknown>),
      updatedAt: iso(n.updated_at),
    })),
    hitlRequests: hitl.map((h) => ({
      requestId: h.request_id,
      nodeId: h.node_id,
      status: h.status as RunDetail['hitlRequests'][number]['status'],
      rationale: h.rationale,
      decision: h.decision as RunDetail['hitlRequests'][number]['decision'],
      createdAt: iso(h.created_at),
      resolvedAt: h.resolved_at ? iso(h.resolved_at) : null,
    })),
  };
}

/** A plan version's row with the type and payload of the event that accepted it. */
type PlanVersionRow = Selectable<PlanVersionsTable> & { event_type: string; event_payload: unknown };

function planVersionView(v: PlanVersionRow, schemaHash: string): PlanVersionView {
  // plan_generated and plan_updated both carry the accepted plan as `plan`, in today's shape once upcast.
  const payload = upcastPayload(v.event_type, json(v.event_payload)) as { plan: PlanGraph };
  const plan = payload.plan;
  return {
    version: v.version,
    planHash: v.plan_hash,
    status: v.status,
    satisfactionScore: v.satisfaction_score,
    diagnostics: v.diagnostics ? json(v.diagnostics) : null,
    registryHash: v.registry_hash,
    schemaHash,
    pendingNodeIds: json(v.pending_node_ids),
    planner: plan.metadata,
    createdAt: iso(v.created_at),
    plan,
  };
}

/**
 * The current plan version's graph, its nodes not yet done (a node with no row has not started),
 * and the latest value of each output facet: a completed node's output holds its facets, and of
 * two nodes that produce one facet the later in plan order (downstream) wins.
 */
function snapshotOf(latest: PlanVersionView, rows: readonly NodeRow[]): PlanSnapshot {
  const byId = new Map(rows.map((r) => [r.node_id, r]));
  const facets: PlanSnapshot['facets'] = {};
  const pendingNodeIds: string[] = [];
  for (const node of latest.plan.nodes) {
    const row = byId.get(node.id);
    if (row?.status !== 'completed' && row?.status !== 'skipped') pendingNodeIds.push(node.id);
    const output = row?.status === 'completed' && row.output !== null ? json(row.output) : undefined;
    if (!output || typeof output !== 'object' || Array.isArray(output)) continue;
    for (const [facet, value] of Object.entries(output)) facets[facet] = { value, nodeId: node.id };
  }
  return {
    version: latest.version,
    planHash: latest.planHash,
    createdAt: latest.createdAt,
    nodes: latest.plan.nodes,
    edges: latest.plan.edges,
    pendingNodeIds,
    facets,
  };
}

function outputView(row: Selectable<RunOutputsTable>, snapshot: PlanSnapshot | null): RunDetail['output'] {
  const output = json(row.output);
  const facetProvenance = Object.keys(output).flatMap((facet) => {
    const from = snapshot?.facets[facet];
    return from ? [{ facet, nodeId: from.nodeId }] : [];
  });
  return { output, planVersion: row.plan_version, completedAt: iso(row.completed_at), facetProvenance };
}
