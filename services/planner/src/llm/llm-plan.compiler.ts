import {
  getFacetCatalog,
  PlanGraphSchema,
  type CapabilityRegistration,
  type PlanEdge,
  type PlanGraph,
  type PlanNode,
} from '@flex/contracts';
import { assignEnforces, compileNode, dependencyOrder, fallbackNode } from '../plan/node-compiler';
import type { PlannerRequest } from '../plan/planner';
import { plannerInputHash } from '../plan/planner-input';
import { keepCompletedWork } from '../plan/replan';
import type { LlmPlan, LlmPlanNode } from './llm-plan.schema';

export interface LlmProvenance {
  plannerId: string;
  plannerVersion: string;
  model: string;
  tokens: { input: number; output: number };
  costCents: number;
}

export type CompiledLlmPlan = { ok: true; plan: PlanGraph } | { ok: false; problems: string[] };

const AGENT_KINDS = new Set(['structuring', 'execution', 'validation']);

/**
 * "Planner proposes; orchestrator compiles" (spec 003 §5.8): turn the LLM's node list into a
 * PlanGraph with compiled contracts, provenance, merged instructions, `enforces`, a terminal
 * fallback and metadata. Problems that make the proposal unusable (unknown capability or facet,
 * dangling dependency, duplicate id) are returned so the LLM can be asked to repair them.
 */
export function compileLlmPlan(
  answer: LlmPlan,
  request: PlannerRequest,
  provenance: LlmProvenance,
): CompiledLlmPlan {
  const problems = proposalProblems(answer, request.capabilities);
  if (problems.length) return { ok: false, problems };
  const byId = new Map(request.capabilities.map((c) => [c.capabilityId, c]));
  const branchCount = answer.nodes.filter((n) => n.kind === 'branch').length;
  let branchIndex = 0;
  let nodes = answer.nodes
    .filter((n) => n.kind !== 'fallback')
    .map((n) =>
      toNode(
        n,
        n.capabilityId ? byId.get(n.capabilityId) : undefined,
        n.kind === 'branch' ? { index: branchIndex++, count: branchCount } : undefined,
      ),
    );
  const ids = new Set(nodes.map((n) => n.id));
  const edges: PlanEdge[] = nodes.flatMap((n) => {
    const deps = answer.nodes.find((a) => a.id === n.id)?.dependsOn ?? [];
    return [...new Set(deps)]
      .filter((d) => ids.has(d))
      .sort()
      .map((from) => ({ from, to: n.id }));
  });
  nodes = assignEnforces(dependencyOrder(nodes, edges), request.envelope);
  const terminal = [...nodes].reverse().find((n) => n.kind === 'execution') ?? nodes[nodes.length - 1];
  const fallback = fallbackNode(terminal);
  const plan: PlanGraph = {
    planVersion: request.planVersion,
    nodes: [...nodes, compileNode(fallback.node)],
    edges: [...edges, fallback.edge],
    metadata: {
      plannerId: provenance.plannerId,
      plannerVersion: provenance.plannerVersion,
      determinism: 'structural',
      inputHash: plannerInputHash(request),
      model: provenance.model.slice(0, 500),
      tokens: provenance.tokens,
      costCents: provenance.costCents,
      planVersionTag: `v${request.planVersion}`,
      branchCount,
      derivedCapabilities: nodes.filter((n) => n.derived).map((n) => n.capabilityId as string),
      normalizationInjected: nodes.some((n) => n.kind === 'transformation'),
    },
  };
  const merged = request.replan ? keepCompletedWork(plan, request.replan) : plan;
  const parsed = PlanGraphSchema.safeParse(merged);
  if (!parsed.success)
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
  return { ok: true, plan: parsed.data };
}

function toNode(
  n: LlmPlanNode,
  cap: CapabilityRegistration | undefined,
  branch: PlanNode['branch'],
): PlanNode {
  const derived = cap !== undefined && n.outputFacets.some((f) => !cap.outputContract.includes(f));
  return compileNode({
    id: n.id,
    kind: n.kind,
    label: cap ? cap.displayName : `${n.kind} ${n.id}`,
    ...(cap ? { capabilityId: cap.capabilityId, agentId: cap.capabilityId.split('.')[0] } : {}),
    ...(cap && derived ? { derived: true, derivedFrom: cap.capabilityId } : {}),
    inputFacets: [...new Set(n.inputFacets)],
    outputFacets: [...new Set(n.outputFacets)],
    ...(branch ? { branch } : {}),
    ...(n.instructions ? { instructions: n.instructions } : {}),
    rationale: n.rationale ?? `Proposed by the LLM planner${cap ? ` for ${cap.capabilityId}` : ''}.`,
  });
}

function proposalProblems(answer: LlmPlan, capabilities: readonly CapabilityRegistration[]): string[] {
  const problems: string[] = [];
  const catalog = getFacetCatalog();
  const ids = new Set<string>();
  for (const n of answer.nodes) {
    if (ids.has(n.id)) problems.push(`node id ${n.id} appears twice`);
    ids.add(n.id);
  }
  for (const n of answer.nodes) {
    if (n.capabilityId && !capabilities.some((c) => c.capabilityId === n.capabilityId))
      problems.push(`node ${n.id}: capability ${n.capabilityId} is not registered and active`);
    if (AGENT_KINDS.has(n.kind) && !n.capabilityId)
      problems.push(`node ${n.id}: a ${n.kind} node needs a capabilityId`);
    for (const f of [...n.inputFacets, ...n.outputFacets])
      if (!catalog.has(f)) problems.push(`node ${n.id}: unknown facet ${f}`);
    for (const d of n.dependsOn)
      if (!ids.has(d) || d === n.id) problems.push(`node ${n.id}: depends on unknown node ${d}`);
  }
  if (!answer.nodes.some((n) => n.kind !== 'fallback'))
    problems.push('the plan has no node besides a fallback');
  return problems;
}
