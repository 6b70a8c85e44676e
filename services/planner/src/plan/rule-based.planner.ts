import type {
  CapabilityRegistration,
  PlanEdge,
  PlanGraph,
  PlanNode,
  PlannerError,
  PlannerOutput,
} from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { bindContract } from '@flex/proof';
import { matchesAny } from './capability-scoring';
import { reviseShape } from './diagnostics-revision';
import { agentOf, GraphBuilder, type NodeDraft } from './graph-builder';
import { assignEnforces, compileNode, dependencyOrder, fallbackNode } from './node-compiler';
import { plannerError, plannerOutput, type Planner, type PlannerRequest } from './planner';
import { plannerInputHash } from './planner-input';
import { shapeFromEnvelope, type PlanShape } from './plan-shape';
import { capabilitiesToAvoid, keepCompletedWork } from './replan';
import { splitIntoLanes } from './lanes';
import { mandatoryTargets, schemaProperties, targetFacets, VALIDATION_FACETS } from './targets';
import { branchNodes, transformationNode } from './virtual-nodes';

export const RULE_BASED_PLANNER = { id: 'rule-based', version: '1.0.0', mode: 'full' as const };

/**
 * The deterministic planner (spec 004 mode `full`): the same normalized input gives a
 * byte-identical plan. It never throws; anything unexpected is a PLANNER_INTERNAL error value.
 */
export class RuleBasedPlanner implements Planner {
  readonly id = RULE_BASED_PLANNER.id;
  readonly version = RULE_BASED_PLANNER.version;
  readonly mode = RULE_BASED_PLANNER.mode;

  async plan(request: PlannerRequest): Promise<PlannerOutput | PlannerError> {
    return planRuleBased(request);
  }
}

/** Synchronous form of {@link RuleBasedPlanner.plan} (the LLM planner's fallback and the benchmark use it). */
export function planRuleBased(request: PlannerRequest): PlannerOutput | PlannerError {
  try {
    return draft(request);
  } catch (error) {
    return plannerError('PLANNER_INTERNAL', `rule-based planner failed: ${(error as Error).message}`);
  }
}

function draft(request: PlannerRequest): PlannerOutput | PlannerError {
  const { envelope } = request;
  const revision = reviseShape(
    shapeFromEnvelope(envelope),
    request.diagnostics,
    envelope,
    request.capabilities,
  );
  if (!revision.ok) return revision.error;
  const shape = revision.shape;
  if (request.replan) {
    // A capability that failed for good is left out; one a policy merely objected to is only avoided.
    const away = capabilitiesToAvoid(request.replan);
    (request.replan.trigger.kind === 'node_failed' ? shape.forbid : shape.avoid).push(...away);
  }
  const capabilities = usableCapabilities(request, shape);
  const missingRequired = shape.require.filter(
    (r) => !capabilities.some((c) => matchesAny(c.capabilityId, [r])),
  );
  if (missingRequired.length > 0) {
    return plannerError(
      'PLANNER_NO_CAPABILITIES',
      `required capability ${missingRequired.join(', ')} is not registered and active`,
      {
        required: missingRequired[0],
        missingRequired,
      },
    );
  }
  const targets = [...new Set([...targetFacets(envelope), ...shape.extraTargets])].sort();
  if (targets.length === 0)
    return plannerError('PLANNER_INVALID_GOAL', 'the output contract names no facet to produce', {
      properties: schemaProperties(envelope),
    });
  const registry = [...request.capabilities].sort((a, b) =>
    a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0,
  );
  const builder = new GraphBuilder(
    envelope,
    capabilities,
    registry,
    new Set(Object.keys(envelopeFacets(envelope).values)),
    shape,
    schemaProperties(envelope),
  );
  const mandatory = mandatoryTargets(envelope);
  const missing = targets.filter(
    (facet) =>
      builder.ensure(facet) === undefined && (mandatory.has(facet) || shape.extraTargets.includes(facet)),
  );
  if (missing.length === 0 && builder.drafts.length === 0) {
    return plannerError(
      'PLANNER_NO_CAPABILITIES',
      `no active capability produces any of ${targets.join(', ')}`,
      { missingFacets: targets },
    );
  }
  if (missing.length > 0) {
    const forbidden = shape.forbiddenKinds.length
      ? ` (forbidden kinds: ${shape.forbiddenKinds.join(', ')})`
      : '';
    return plannerError(
      'PLANNER_NO_CAPABILITIES',
      `no active capability produces ${missing.join(', ')}${forbidden}`,
      { missingFacets: missing },
    );
  }
  for (const required of shape.require)
    builder.include(
      capabilities.find((c) => matchesAny(c.capabilityId, [required])) as CapabilityRegistration,
    );
  if (shape.requiredKinds.includes('validation') && !builder.drafts.some((d) => d.kind === 'validation')) {
    if (![...VALIDATION_FACETS].some((f) => builder.ensure(f) !== undefined)) {
      return plannerError(
        'PLANNER_NO_CAPABILITIES',
        'policy requires a validation node but no active capability produces QA findings',
        { requiredKinds: ['validation'] },
      );
    }
  }
  const plan = splitIntoLanes(assemble(request, shape, builder), envelope);
  const kept = request.replan ? keepCompletedWork(plan, request.replan) : plan;
  return plannerOutput(
    bindContract(kept, envelope),
    revision.actions.length ? { revisions: revision.actions } : {},
  );
}

function usableCapabilities(request: PlannerRequest, shape: PlanShape): CapabilityRegistration[] {
  return [...request.capabilities]
    .filter((c) => !matchesAny(c.capabilityId, shape.forbid))
    .sort((a, b) => (a.capabilityId < b.capabilityId ? -1 : a.capabilityId > b.capabilityId ? 1 : 0));
}

function assemble(request: PlannerRequest, shape: PlanShape, builder: GraphBuilder): PlanGraph {
  const { envelope } = request;
  const drafts = builder.classified();
  let nodes: PlanNode[] = drafts.map(agentNode);
  let edges: PlanEdge[] = drafts.flatMap((d) => d.deps.map((from) => ({ from, to: d.id })));
  const branched = branchNodes(nodes, edges, shape, envelope);
  ({ nodes, edges } = branched);
  const transformation = transformationNode(nodes, shape, schemaProperties(envelope), builder.producedBy);
  if (transformation) {
    nodes.push(transformation.node);
    edges.push(...transformation.edges);
  }
  nodes = assignEnforces(dependencyOrder(nodes, edges), envelope);
  const terminal = [...nodes].reverse().find((n) => n.kind === 'execution') ?? nodes[nodes.length - 1];
  if (!shape.forbiddenKinds.includes('fallback')) {
    const fallback = fallbackNode(terminal);
    nodes.push(compileNode(fallback.node));
    edges.push(fallback.edge);
  }
  return {
    planVersion: request.planVersion,
    nodes,
    edges,
    metadata: {
      plannerId: RULE_BASED_PLANNER.id,
      plannerVersion: RULE_BASED_PLANNER.version,
      determinism: RULE_BASED_PLANNER.mode,
      inputHash: plannerInputHash(request),
      tokens: { input: 0, output: 0 },
      costCents: 0,
      planVersionTag: `v${request.planVersion}`,
      branchCount: branched.count,
      derivedCapabilities: drafts.filter((d) => d.derived).map((d) => d.cap.capabilityId),
      normalizationInjected: transformation !== undefined,
    },
  };
}

function agentNode(d: NodeDraft): PlanNode {
  const agentId = agentOf(d.cap);
  return compileNode({
    id: d.id,
    kind: d.kind,
    label: d.derived ? `${d.cap.displayName} (derived: ${d.outputs.join(', ')})` : d.cap.displayName,
    capabilityId: d.cap.capabilityId,
    agentId,
    ...(d.derived ? { derived: true, derivedFrom: d.cap.capabilityId } : {}),
    inputFacets: d.inputs,
    outputFacets: d.outputs,
    rationale: d.derived
      ? `No usable declared capability produces ${d.outputs.join(', ')}; agent ${agentId} declares it, so the node is derived through ${d.cap.capabilityId}.`
      : `${d.cap.capabilityId} produces ${d.outputs.join(', ')} from ${d.inputs.join(', ') || 'nothing upstream'}.`,
  });
}
