import type { PlanGraph, PlanNode } from '@flex/contracts';
import type { HitlRequestState, NodeState, RunState, StartedRun } from '@flex/run-model';

/**
 * What the run read model's rows say, derived from the run's folded state (`evolveRun`): the
 * lifecycle rules live in `@flex/run-model` only, and these are plain mappings of its result.
 */

/** The `runs` columns that follow from the state alone. */
export function runColumns(state: StartedRun) {
  const failure = state.status === 'failed' ? state.failure : undefined;
  return {
    status: state.status,
    plan_version: state.planVersion,
    satisfaction_score: state.satisfactionScore ?? null,
    failure_code: failure?.code ?? null,
    failure_reason: failure?.reason ?? null,
  };
}

/** A `plan_nodes` row's columns: the plan's node (kind, planned capability) and the node's state. */
export interface NodeColumns {
  kind: string;
  capability_id: string | null;
  status: string;
  attempt: number;
  output: string | null;
  error: string | null;
}

/** A node with a row: in the current plan, with a state. */
export interface ShownNode {
  planNode: PlanNode;
  node: NodeState;
}

/** The nodes that have a row, by id: the current plan's (a plan version that drops a node drops its row). */
export function shownNodes(state: RunState): Map<string, ShownNode> {
  const shown = new Map<string, ShownNode>();
  if (state.status === 'none' || !state.plan) return shown;
  for (const planNode of state.plan.nodes) {
    const node = state.nodes[planNode.id];
    if (node) shown.set(planNode.id, { planNode, node });
  }
  return shown;
}

/** The nodes of `plan` the run has yet to finish: neither completed nor skipped. */
export function pendingNodeIds(plan: PlanGraph, state: StartedRun): string[] {
  return plan.nodes
    .filter((n) => {
      const status = state.nodes[n.id]?.status;
      return status !== 'completed' && status !== 'skipped';
    })
    .map((n) => n.id);
}

export function nodeColumns({ planNode, node }: ShownNode): NodeColumns {
  return {
    kind: planNode.kind,
    capability_id: planNode.capabilityId ?? null,
    status: node.status,
    attempt: node.attempt,
    output: node.output ? JSON.stringify(node.output) : null,
    error: node.error ? JSON.stringify(node.error) : null,
  };
}

export function sameNodeColumns(a: NodeColumns, b: NodeColumns): boolean {
  return (
    a.kind === b.kind &&
    a.capability_id === b.capability_id &&
    a.status === b.status &&
    a.attempt === b.attempt &&
    a.output === b.output &&
    a.error === b.error
  );
}

/**
 * A request's status as rows show it. A request closed with its run reads `cancelled`: the word
 * the HTTP API, the CLI and the dashboard have always shown for it.
 */
export type HitlRowStatus = 'pending' | 'decided' | 'resolved' | 'cancelled';

/** A `hitl_requests` row's columns that follow from the request's state. */
export interface HitlColumns {
  node_id: string | null;
  status: HitlRowStatus;
  decision: 'approve' | 'reject' | null;
}

export function hitlColumns(request: HitlRequestState): HitlColumns {
  const node_id = request.nodeId ?? null;
  switch (request.status) {
    case 'pending':
      return { node_id, status: 'pending', decision: null };
    case 'decided':
    case 'resolved':
      return { node_id, status: request.status, decision: request.decision };
    case 'closed':
      return { node_id, status: 'cancelled', decision: null };
  }
}

export function sameHitlColumns(a: HitlColumns, b: HitlColumns): boolean {
  return a.node_id === b.node_id && a.status === b.status && a.decision === b.decision;
}
