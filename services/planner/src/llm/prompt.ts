import { getFacetCatalog, type PlanDiagnostic } from '@flex/contracts';
import type { PlannerRequest } from '../plan/planner';
import type { ChatMessage } from './chat-client';

const SYSTEM = [
  'You are the planner of Flex, a contract-first orchestrator for AI agents.',
  'Propose a plan as a DAG of nodes over the registered capabilities only. Node kinds: structuring (strategy / brief),',
  'branch (one per variant, orchestrator-managed, no capabilityId), execution, transformation (orchestrator-managed normalization),',
  'validation (QA), fallback (human escalation; the orchestrator adds one if you leave it out).',
  'Each node lists the catalog facets it reads (inputFacets) and writes (outputFacets) and the node ids it dependsOn.',
  'The orchestrator compiles, validates and executes your proposal; it rejects plans that cannot satisfy the contract.',
  'Answer with JSON matching the flex_plan schema and nothing else.',
].join(' ');

/** The chat messages for one plan request (spec 000 §5.9.2 step 5: diagnostics by constraintId, cause, suggestion). */
export function planningMessages(request: PlannerRequest): ChatMessage[] {
  const { envelope } = request;
  const planner = envelope.policies?.planner ?? {};
  const sections: Array<[string, unknown]> = [
    ['Objective', envelope.objective],
    ['Inputs', envelope.inputs ?? {}],
    ['Special instructions', envelope.specialInstructions ?? []],
    ['Caller output schema', envelope.outputContract.schema],
    ['Constraints', envelope.outputContract.constraints ?? []],
    [
      'Planner policies',
      {
        topology: planner.topology ?? {},
        selection: planner.selection ?? {},
        optimisation: planner.optimisation ?? {},
      },
    ],
    ['Directives', planner.directives ?? {}],
    [
      'Runtime policies',
      (envelope.policies?.runtime ?? []).map((p) => ({ id: p.id, trigger: p.trigger, action: p.action })),
    ],
    ['Capabilities', capabilityContracts(request)],
    ['Facet catalog', facetSummaries(request)],
  ];
  if (request.replan) {
    sections.push([
      'Replan',
      {
        trigger: request.replan.trigger,
        previousVersion: request.replan.previousVersion,
        currentPlan: request.replan.previousPlan.nodes.map((n) => ({
          id: n.id,
          kind: n.kind,
          capabilityId: n.capabilityId ?? null,
          outputFacets: n.outputFacets,
        })),
        completedNodes: Object.entries(request.replan.completed).map(([id, output]) => ({
          id,
          outputFacets: Object.keys(output),
        })),
        rule: 'Keep every completed node with the same id, capabilityId and facets; their outputs are reused.',
      },
    ]);
  }
  const user = sections.map(
    ([title, value]) => `## ${title}\n${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}`,
  );
  const diagnostics = [...(request.diagnostics?.failures ?? []), ...(request.diagnostics?.warnings ?? [])];
  if (diagnostics.length) user.push(diagnosticsSection(request.attempt, diagnostics));
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: user.join('\n\n') },
  ];
}

/** The repair turn after an answer the orchestrator could not use. */
export function repairMessage(problems: readonly string[]): ChatMessage {
  return {
    role: 'user',
    content: `Your plan cannot be used:\n${problems.map((p) => `- ${p}`).join('\n')}\nAnswer again with a corrected plan.`,
  };
}

function diagnosticsSection(attempt: number, diagnostics: readonly PlanDiagnostic[]): string {
  const lines = diagnostics.map(
    (d) =>
      `- constraintId: ${d.constraintId ?? '(none)'}; cause: ${d.cause}; severity: ${d.severity}` +
      `${d.nodeId ? `; nodeId: ${d.nodeId}` : ''}${d.capabilityId ? `; capabilityId: ${d.capabilityId}` : ''}` +
      `${d.constraint ? `; constraint: ${d.constraint}` : ''}; suggestion: ${d.suggestion ?? '(none)'}`,
  );
  return `## Previous attempt rejected (attempt ${attempt - 1})\nThe validator rejected your previous plan. Fix every diagnostic below:\n${lines.join('\n')}`;
}

function capabilityContracts(request: PlannerRequest) {
  return [...request.capabilities]
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : 1))
    .map((c) => ({
      capabilityId: c.capabilityId,
      displayName: c.displayName,
      summary: c.summary,
      inputContract: c.inputContract,
      outputContract: c.outputContract,
      traits: c.inputTraits ?? {},
      cost: c.cost ?? {},
    }));
}

function facetSummaries(request: PlannerRequest) {
  const names = new Set(request.capabilities.flatMap((c) => [...c.inputContract, ...c.outputContract]));
  return getFacetCatalog()
    .list()
    .filter((f) => names.has(f.name))
    .map((f) => ({ name: f.name, direction: f.metadata.directionality, semantics: f.semantics }));
}
