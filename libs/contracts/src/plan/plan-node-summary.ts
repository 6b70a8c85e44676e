import { z } from 'zod';
import { IdentifierSchema, ShortTextSchema } from '../shared/identifiers';
import type { PlanGraph } from './plan-graph';
import type { PlanNode } from './plan-node';
import { PlanNodeKindSchema } from './plan-node-kind';

/**
 * The trimmed node view streamed in `plan_generated` / `plan_updated` (spec 000 §5.9.4):
 * what each node provides (its output facets) and which constraints it enforces.
 */
export const PlanNodeSummarySchema = z.strictObject({
  nodeId: IdentifierSchema,
  capabilityId: IdentifierSchema.optional(),
  label: ShortTextSchema,
  kind: PlanNodeKindSchema,
  provides: z.array(z.string()),
  enforces: z.array(z.string()),
});

/** See {@link PlanNodeSummarySchema}. */
export type PlanNodeSummary = z.infer<typeof PlanNodeSummarySchema>;

/** The {@link PlanNodeSummary} of one node. */
export function summarizePlanNode(node: PlanNode): PlanNodeSummary {
  return {
    nodeId: node.id,
    ...(node.capabilityId === undefined ? {} : { capabilityId: node.capabilityId }),
    label: node.label,
    kind: node.kind,
    provides: [...node.outputFacets],
    enforces: [...(node.enforces ?? [])],
  };
}

/** The {@link PlanNodeSummary} of every node, in plan order. */
export function summarizePlan(plan: PlanGraph): PlanNodeSummary[] {
  return plan.nodes.map(summarizePlanNode);
}
