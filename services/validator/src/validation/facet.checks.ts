import { facetAllows, getFacetCatalog, type PlanDiagnostic, type PlanNode } from '@flex/contracts';
import type { PlanIndex } from './plan-index';
import { agentOf, type RegistryIndex } from './registry-index';
import { issue } from './structural.checks';

/** Every facet a node reads must be able to flow in, every facet it writes able to flow out (catalog directionality). */
export function checkDirectionality(index: PlanIndex): PlanDiagnostic[] {
  const catalog = getFacetCatalog();
  const out: PlanDiagnostic[] = [];
  for (const node of index.plan.nodes) {
    for (const [direction, facets] of [
      ['input', node.inputFacets],
      ['output', node.outputFacets],
    ] as const) {
      for (const facet of facets) {
        const definition = catalog.get(facet);
        if (!definition) {
          out.push(
            issue('unknown_facet', `${node.id} names unknown ${direction} facet ${facet}`, {
              nodeId: node.id,
              details: { check: 'unknown_facet', facet },
            }),
          );
        } else if (!facetAllows(definition, direction)) {
          const message = `${node.id} uses ${facet} as ${direction}, but it is ${definition.metadata.directionality}-only`;
          out.push(
            issue('facet_direction', message, {
              nodeId: node.id,
              details: { check: 'facet_direction', facet, direction },
            }),
          );
        }
      }
    }
  }
  return out;
}

/** Every input facet of a node is produced by one of its ancestors or supplied by the envelope. */
export function checkInputCoverage(
  index: PlanIndex,
  supplied: ReadonlySet<string>,
  registry: RegistryIndex,
): PlanDiagnostic[] {
  if (!index.acyclic) return []; // upstream sets mean nothing in a cycle; the cycle is reported
  const catalog = getFacetCatalog();
  const out: PlanDiagnostic[] = [];
  for (const node of index.order) {
    for (const facet of node.inputFacets) {
      if (
        supplied.has(facet) ||
        node.bindings?.inputs?.[facet] ||
        index.hasUpstream(node.id, facet) ||
        !catalog.has(facet)
      )
        continue;
      const producer = registry.producers.get(facet)?.[0];
      const suggestion = producer
        ? `Insert ${producer.capabilityId} before ${node.id}.`
        : catalog.get(facet)?.metadata.directionality === 'output'
          ? `No active capability produces ${facet}; drop it from ${node.id}'s inputs.`
          : `Supply inputs.${facet} in the envelope, or drop it from ${node.id}'s inputs.`;
      out.push({
        severity: 'hard',
        status: 'unsatisfied',
        cause: 'missing_producer',
        constraint: `${node.id} reads ${facet}, which neither an upstream node nor the envelope provides`,
        constraintId: `facet.${facet}`,
        nodeId: node.id,
        ...(producer ? { capabilityId: producer.capabilityId } : {}),
        suggestion,
        details: { check: 'input_coverage', facet },
      });
    }
  }
  return out;
}

/** A derived node must sit on a registered agent whose declared facets cover the node's facets. */
export function checkDerived(index: PlanIndex, registry: RegistryIndex): PlanDiagnostic[] {
  const out: PlanDiagnostic[] = [];
  for (const node of index.plan.nodes) {
    if (!node.derived) continue;
    const agent = derivedAgent(node, registry);
    const facets = agent === undefined ? undefined : registry.agents.get(agent);
    if (!facets) {
      out.push(
        issue(
          'derived_agent',
          `derived node ${node.id} names no registered agent${agent ? ` (${agent})` : ''}`,
          {
            nodeId: node.id,
            cause: 'missing_producer',
            suggestion: `Set agentId of ${node.id} to an active agent, or use a registered capability.`,
          },
        ),
      );
      continue;
    }
    const uncovered = [
      ...node.inputFacets.filter((f) => !facets.inputs.has(f)),
      ...node.outputFacets.filter((f) => !facets.outputs.has(f)),
    ];
    if (uncovered.length > 0) {
      out.push(
        issue(
          'derived_facets',
          `agent ${agent} does not declare ${uncovered.join(', ')} used by derived node ${node.id}`,
          {
            nodeId: node.id,
            suggestion: `Derive ${node.id} only from facets ${agent} declares, or choose another agent.`,
            details: { check: 'derived_facets', agent: agent as string, uncovered },
          },
        ),
      );
    }
  }
  return out;
}

function derivedAgent(node: PlanNode, registry: RegistryIndex): string | undefined {
  if (node.agentId) return node.agentId;
  const from = node.derivedFrom ?? node.capabilityId;
  if (!from) return undefined;
  const registered = registry.byCapability.get(from);
  return agentOf(registered ?? { capabilityId: from });
}
