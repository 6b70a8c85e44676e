import type { PlanGraph } from '../plan/plan-graph';
import type { PlanNode } from '../plan/plan-node';
import type { Spec004Plan, Spec004Step } from './spec004-plan';

/** Thrown by {@link planGraphToSteps} for a graph that is not a DAG over its own nodes. */
export class PlanGraphShapeError extends Error {
  override name = 'PlanGraphShapeError';
  constructor(
    readonly code: 'PLAN_EDGE_UNKNOWN_NODE' | 'PLAN_CYCLE' | 'PLAN_DUPLICATE_NODE',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Spec 004's steps view of a plan: nodes in a deterministic topological order (ties keep plan
 * order), `skill` = the capability id (`flex.<kind>` for virtual nodes), `depends_on` = direct
 * upstream nodes, `on_error` = `retry` when the node retries (`retry_count` = attempts − 1).
 * Throws {@link PlanGraphShapeError} on cycles, duplicate ids or edges to unknown nodes.
 */
export function planGraphToSteps(plan: PlanGraph): Spec004Plan {
  const meta = plan.metadata;
  return {
    steps: topologicalNodes(plan).map((node) => toStep(node, upstream(plan, node.id))),
    metadata: {
      planner: meta.plannerId,
      planner_version: meta.plannerVersion,
      ...(meta.model === undefined ? {} : { model: meta.model }),
      ...(meta.tokens === undefined
        ? {}
        : { input_tokens: meta.tokens.input, output_tokens: meta.tokens.output }),
      ...(meta.costCents === undefined ? {} : { cost_cents: meta.costCents }),
      deterministic: meta.determinism === 'full',
    },
  };
}

function toStep(node: PlanNode, dependsOn: string[]): Spec004Step {
  const retries = (node.retry?.maxAttempts ?? 1) - 1;
  const params: Record<string, unknown> = {
    kind: node.kind,
    label: node.label,
    inputFacets: node.inputFacets,
    outputFacets: node.outputFacets,
  };
  if (node.instructions !== undefined) params.instructions = node.instructions;
  if (node.fallbackFor !== undefined) params.fallbackFor = node.fallbackFor;
  return {
    step_id: node.id,
    skill: node.capabilityId ?? `flex.${node.kind}`,
    params,
    depends_on: dependsOn,
    on_error: retries > 0 ? 'retry' : 'abort',
    retry_count: retries,
  };
}

function upstream(plan: PlanGraph, id: string): string[] {
  return [...new Set(plan.edges.filter((e) => e.to === id).map((e) => e.from))];
}

function topologicalNodes(plan: PlanGraph): PlanNode[] {
  const indegree = new Map<string, number>();
  for (const node of plan.nodes) {
    if (indegree.has(node.id))
      throw new PlanGraphShapeError('PLAN_DUPLICATE_NODE', `node id "${node.id}" appears twice`);
    indegree.set(node.id, 0);
  }
  const edges = uniqueEdges(plan);
  for (const e of edges) {
    if (!indegree.has(e.from) || !indegree.has(e.to))
      throw new PlanGraphShapeError(
        'PLAN_EDGE_UNKNOWN_NODE',
        `edge ${e.from} → ${e.to} names an unknown node`,
      );
    indegree.set(e.to, (indegree.get(e.to) as number) + 1);
  }
  const order: PlanNode[] = [];
  const done = new Set<string>();
  while (order.length < plan.nodes.length) {
    // Re-scanning in plan order keeps ties stable: the earliest ready node always goes next.
    const next = plan.nodes.find((n) => !done.has(n.id) && indegree.get(n.id) === 0);
    if (!next) throw new PlanGraphShapeError('PLAN_CYCLE', 'the plan has a cycle');
    done.add(next.id);
    order.push(next);
    for (const e of edges) if (e.from === next.id) indegree.set(e.to, (indegree.get(e.to) as number) - 1);
  }
  return order;
}

function uniqueEdges(plan: PlanGraph): Array<{ from: string; to: string }> {
  const seen = new Set<string>();
  return plan.edges.filter((e) => {
    const key = `${e.from}\u0000${e.to}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
