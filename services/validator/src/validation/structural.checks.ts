import type { PlanDiagnostic, PlanGraph, TaskEnvelope } from '@flex/contracts';
import { checkUntrustedSchema } from '@flex/facets';
import type { PlanIndex } from './plan-index';
import type { RegistryIndex } from './registry-index';

const AGENT_KINDS = new Set(['structuring', 'execution', 'validation']);

/** A hard structural finding: `constraintId` is `structure.<check>`, `constraint` the readable message. */
export function issue(check: string, message: string, extra: Partial<PlanDiagnostic> = {}): PlanDiagnostic {
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
export function checkGraph(index: PlanIndex): PlanDiagnostic[] {
  const { plan } = index;
  const out: PlanDiagnostic[] = [];
  const seen = new Set<string>();
  for (const node of plan.nodes) {
    if (seen.has(node.id))
      out.push(issue('duplicate_node', `node id ${node.id} appears twice`, { nodeId: node.id }));
    seen.add(node.id);
    if (AGENT_KINDS.has(node.kind) && !node.capabilityId) {
      out.push(
        issue('node_incomplete', `${node.kind} node ${node.id} names no capability`, { nodeId: node.id }),
      );
    }
    if (node.kind === 'fallback' && node.fallbackFor && !index.byId.has(node.fallbackFor)) {
      out.push(
        issue('dangling_fallback', `fallback ${node.id} covers unknown node ${node.fallbackFor}`, {
          nodeId: node.id,
        }),
      );
    }
  }
  for (const edge of index.danglingEdges) {
    for (const end of [edge.from, edge.to]) {
      if (!index.byId.has(end))
        out.push(
          issue('dangling_edge', `edge ${edge.from} → ${edge.to} names unknown node ${end}`, { nodeId: end }),
        );
    }
  }
  if (!index.acyclic) {
    const cycle = findCycle(index);
    out.push(issue('cycle', `the plan has a cycle: ${cycle.join(' → ')}`, { nodeId: cycle[0] }));
  }
  for (const id of unreachable(index)) {
    out.push(
      issue('unreachable', `node ${id} is not connected to the rest of the plan`, {
        nodeId: id,
        suggestion: `Connect ${id} to the plan or remove it.`,
      }),
    );
  }
  if (plan.nodes.length === 0) out.push(issue('empty_plan', 'the plan has no nodes'));
  return out;
}

/** Capabilities named by nodes must be registered and active now. */
export function checkCapabilities(plan: PlanGraph, registry: RegistryIndex): PlanDiagnostic[] {
  return plan.nodes
    .filter((n) => n.capabilityId && !n.derived && !registry.byCapability.has(n.capabilityId))
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
export function checkTopology(index: PlanIndex, envelope: TaskEnvelope): PlanDiagnostic[] {
  const { plan } = index;
  const topology = envelope.policies?.planner?.topology ?? {};
  const kinds = new Set(plan.nodes.map((n) => n.kind));
  const out: PlanDiagnostic[] = [];
  for (const kind of topology.requiredKinds ?? []) {
    if (!kinds.has(kind as never))
      out.push(
        issue('required_kind', `policy requires a ${kind} node`, { suggestion: `Add a ${kind} node.` }),
      );
  }
  for (const node of plan.nodes) {
    if ((topology.forbiddenKinds ?? []).includes(node.kind)) {
      out.push(
        issue('forbidden_kind', `policy forbids ${node.kind} nodes`, {
          nodeId: node.id,
          suggestion: `Remove ${node.id}.`,
        }),
      );
    }
  }
  if (topology.maxDepth !== undefined && index.depth > topology.maxDepth) {
    out.push(
      issue('max_depth', `plan depth ${index.depth} exceeds maxDepth ${topology.maxDepth}`, {
        suggestion: `Shorten the longest chain to ${topology.maxDepth} nodes.`,
      }),
    );
  }
  return out;
}

/** The caller's schema must compile under the hardened rules. */
export function checkCallerSchema(envelope: TaskEnvelope): PlanDiagnostic[] {
  return checkUntrustedSchema(envelope.outputContract.schema).map((i) =>
    issue('caller_schema', `${i.path}: ${i.message}`, { details: { check: 'caller_schema', code: i.code } }),
  );
}

/** A cycle among the nodes Kahn's algorithm could not order (only called when there is one). */
function findCycle(index: PlanIndex): string[] {
  const ordered = new Set(index.order.map((n) => index.position.get(n.id) as number));
  const state = new Map<number, 'visiting' | 'done'>();
  const path: number[] = [];
  const visit = (i: number): number[] | undefined => {
    if (state.get(i) === 'visiting') return [...path.slice(path.indexOf(i)), i];
    if (state.get(i) === 'done' || ordered.has(i)) return undefined;
    state.set(i, 'visiting');
    path.push(i);
    for (const to of index.children(i)) {
      const found = visit(to);
      if (found) return found;
    }
    path.pop();
    state.set(i, 'done');
    return undefined;
  };
  for (let i = 0; i < index.nodes.length; i++) {
    const found = visit(i);
    if (found) return found.map((at) => index.nodes[at].id);
  }
  return [];
}

/** Main-path nodes not connected (ignoring edge direction) to the terminal node; fallbacks hang off the node they cover. */
function unreachable(index: PlanIndex): string[] {
  const { nodes, terminal } = index;
  if (!terminal || nodes.length < 2) return [];
  const covers: number[][] = nodes.map(() => []);
  nodes.forEach((node, i) => {
    const target = node.fallbackFor === undefined ? undefined : index.position.get(node.fallbackFor);
    if (target !== undefined) {
      covers[i].push(target);
      covers[target].push(i);
    }
  });
  const seen = new Uint8Array(nodes.length);
  const stack = [index.position.get(terminal.id) as number];
  seen[stack[0]] = 1;
  while (stack.length) {
    const i = stack.pop() as number;
    for (const list of [index.children(i), index.parents(i), covers[i]]) {
      for (const j of list) {
        if (!seen[j]) {
          seen[j] = 1;
          stack.push(j);
        }
      }
    }
  }
  return nodes.filter((n, i) => !seen[i] && n.kind !== 'fallback').map((n) => n.id);
}
