import type { CapabilityRegistration, PlanDiagnostic, PlanGraph, TaskEnvelope } from '@flex/contracts';
import { checkUntrustedSchema } from '@flex/facets';

const AGENT_KINDS = new Set(['structuring', 'execution', 'validation']);

function issue(check: string, message: string, extra: Partial<PlanDiagnostic> = {}): PlanDiagnostic {
  return {
    severity: 'hard',
    status: 'unsatisfied',
    cause: 'schema_incompatible',
    constraint: message,
    constraintId: `structure.${check}`,
    details: { check },
    ...extra,
  };
}

/** DAG integrity and node completeness: duplicate ids, dangling edges, cycles, unreachable or incomplete nodes. */
export function checkGraph(plan: PlanGraph): PlanDiagnostic[] {
  const out: PlanDiagnostic[] = [];
  const ids = new Set<string>();
  for (const node of plan.nodes) {
    if (ids.has(node.id)) out.push(issue('duplicate_node', `node id ${node.id} appears twice`, { nodeId: node.id }));
    ids.add(node.id);
    if (AGENT_KINDS.has(node.kind) && !node.capabilityId) {
      out.push(issue('node_incomplete', `${node.kind} node ${node.id} names no capability`, { nodeId: node.id }));
    }
    if (node.kind === 'fallback' && node.fallbackFor && !plan.nodes.some((n) => n.id === node.fallbackFor)) {
      out.push(issue('dangling_fallback', `fallback ${node.id} covers unknown node ${node.fallbackFor}`, { nodeId: node.id }));
    }
  }
  for (const edge of plan.edges) {
    for (const end of [edge.from, edge.to]) {
      if (!ids.has(end)) out.push(issue('dangling_edge', `edge ${edge.from} → ${edge.to} names unknown node ${end}`, { nodeId: end }));
    }
  }
  const cycle = findCycle(plan);
  if (cycle) out.push(issue('cycle', `the plan has a cycle: ${cycle.join(' → ')}`, { nodeId: cycle[0] }));
  if (plan.nodes.length === 0) out.push(issue('empty_plan', 'the plan has no nodes'));
  return out;
}

/** Capabilities named by nodes must be registered and active now. */
export function checkCapabilities(plan: PlanGraph, active: readonly CapabilityRegistration[]): PlanDiagnostic[] {
  const known = new Set(active.map((c) => c.capabilityId));
  return plan.nodes
    .filter((n) => n.capabilityId && !known.has(n.capabilityId))
    .map((n) =>
      issue('capability_unavailable', `capability ${n.capabilityId} is not registered and active`, {
        nodeId: n.id,
        capabilityId: n.capabilityId,
        cause: 'missing_producer',
        suggestion: `Choose an active capability producing ${n.outputFacets.join(', ')}.`,
      }),
    );
}

/** Policy topology rules: required and forbidden kinds, maximum depth. */
export function checkTopology(plan: PlanGraph, envelope: TaskEnvelope): PlanDiagnostic[] {
  const topology = envelope.policies?.planner?.topology ?? {};
  const kinds = new Set(plan.nodes.map((n) => n.kind));
  const out: PlanDiagnostic[] = [];
  for (const kind of topology.requiredKinds ?? []) {
    if (!kinds.has(kind as never)) out.push(issue('required_kind', `policy requires a ${kind} node`, { suggestion: `Add a ${kind} node.` }));
  }
  for (const node of plan.nodes) {
    if ((topology.forbiddenKinds ?? []).includes(node.kind)) {
      out.push(issue('forbidden_kind', `policy forbids ${node.kind} nodes`, { nodeId: node.id, suggestion: `Remove ${node.id}.` }));
    }
  }
  if (topology.maxDepth !== undefined && depth(plan) > topology.maxDepth) {
    out.push(issue('max_depth', `plan depth ${depth(plan)} exceeds maxDepth ${topology.maxDepth}`));
  }
  return out;
}

/** The caller's schema must compile under the hardened rules. */
export function checkCallerSchema(envelope: TaskEnvelope): PlanDiagnostic[] {
  return checkUntrustedSchema(envelope.outputContract.schema).map((i) => issue('caller_schema', `${i.path}: ${i.message}`, { details: { check: 'caller_schema', code: i.code } }));
}

function findCycle(plan: PlanGraph): string[] | undefined {
  const state = new Map<string, 'visiting' | 'done'>();
  const next = (id: string) => plan.edges.filter((e) => e.from === id).map((e) => e.to);
  const visit = (id: string, path: string[]): string[] | undefined => {
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    if (state.get(id) === 'done') return undefined;
    state.set(id, 'visiting');
    for (const to of next(id)) {
      const found = visit(to, [...path, id]);
      if (found) return found;
    }
    state.set(id, 'done');
    return undefined;
  };
  for (const node of plan.nodes) {
    const found = visit(node.id, []);
    if (found) return found;
  }
  return undefined;
}

function depth(plan: PlanGraph): number {
  const memo = new Map<string, number>();
  const longest = (id: string, guard: number): number => {
    if (guard > plan.nodes.length) return guard;
    if (memo.has(id)) return memo.get(id) as number;
    const up = plan.edges.filter((e) => e.to === id).map((e) => longest(e.from, guard + 1));
    const d = 1 + (up.length ? Math.max(...up) : 0);
    memo.set(id, d);
    return d;
  };
  return Math.max(0, ...plan.nodes.map((n) => longest(n.id, 0)));
}
