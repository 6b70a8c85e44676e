import type { PlanEdge, PlanNode, TaskEnvelope } from '@flex/contracts';
import { defaultFacetCompiler, nodeInstructionsFor } from '@flex/facets';
import { constraintsWithRoots } from './targets';

/**
 * Spec 003 §5.7 steps 3–5 for one node: the compiled input and output contracts with their facet
 * provenance, and the instruction merged from the facets' semantics (unless the node brings its
 * own). A facet set that does not compile is left to the validator, which reports it with a code.
 */
export function compileNode(node: PlanNode): PlanNode {
  const compiler = defaultFacetCompiler();
  const out: PlanNode = { ...node };
  try {
    const input = compiler.compile(node.inputFacets, 'input');
    const output = compiler.compile(node.outputFacets, 'output');
    out.inputSchema = input.schema as Record<string, unknown>;
    out.outputSchema = output.schema as Record<string, unknown>;
    out.provenance = [...input.provenance, ...output.provenance].map((p) => ({
      facet: p.facet,
      direction: p.direction,
      pointer: p.pointer,
    }));
  } catch {
    // Reported by the validator (schema_incompatible) with the compiler's code.
  }
  out.instructions ??= nodeInstructionsFor({ input: node.inputFacets, output: node.outputFacets });
  return out;
}

/**
 * The `enforces` convention shared with the validator: a constraint is enforced by the agent node
 * that produces its `var` root facets last in the chain (QA nodes for qaFindings, the execution
 * node for copyVariants). `nodes` must be in dependency order.
 */
export function assignEnforces(nodes: PlanNode[], envelope: TaskEnvelope): PlanNode[] {
  const enforces = new Map<string, string[]>();
  for (const { id, roots } of constraintsWithRoots(envelope)) {
    let last = -1;
    for (const root of roots) {
      nodes.forEach((n, index) => {
        if (n.capabilityId && n.outputFacets.includes(root) && index > last) last = index;
      });
    }
    if (last >= 0) enforces.set(nodes[last].id, [...(enforces.get(nodes[last].id) ?? []), id]);
  }
  return nodes.map((n) => {
    const ids = enforces.get(n.id);
    const { enforces: _old, ...rest } = n;
    return ids ? { ...rest, enforces: ids } : rest;
  });
}

/** The terminal HITL node for `terminal` (spec 003 §5.7 "Fallback wiring"). */
export function fallbackNode(terminal: PlanNode): { node: PlanNode; edge: PlanEdge } {
  return {
    node: {
      id: 'fallback-1',
      kind: 'fallback',
      label: 'Escalate to a human operator',
      inputFacets: [...terminal.inputFacets],
      outputFacets: [...terminal.outputFacets],
      fallbackFor: terminal.id,
      instructions: `If ${terminal.id} cannot produce a valid ${terminal.outputFacets.join(', ')}, a human operator supplies it from the same inputs.`,
      rationale: 'Every plan ends with a HITL fallback for its terminal execution node.',
    },
    edge: { from: terminal.id, to: 'fallback-1' },
  };
}

/** Nodes in dependency order (Kahn; ties keep the given order). Cycles leave their nodes at the end. */
export function dependencyOrder(nodes: readonly PlanNode[], edges: readonly PlanEdge[]): PlanNode[] {
  const indegree = new Map(nodes.map((n) => [n.id, 0]));
  for (const e of edges)
    if (indegree.has(e.to) && indegree.has(e.from)) indegree.set(e.to, (indegree.get(e.to) as number) + 1);
  const order: PlanNode[] = [];
  const done = new Set<string>();
  for (let progressed = true; progressed;) {
    progressed = false;
    for (const n of nodes) {
      if (done.has(n.id) || indegree.get(n.id) !== 0) continue;
      done.add(n.id);
      order.push(n);
      progressed = true;
      for (const e of edges)
        if (e.from === n.id && indegree.has(e.to)) indegree.set(e.to, (indegree.get(e.to) as number) - 1);
    }
  }
  return [...order, ...nodes.filter((n) => !done.has(n.id))];
}
