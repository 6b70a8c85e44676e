import { z } from 'zod';
import { IdentifierSchema, LongTextSchema, ShortTextSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';
import { FacetNameSchema } from '../facets/facet-definition';
import { PlanNodeKindSchema } from './plan-node-kind';

/**
 * Where a fragment of a node's compiled schema came from: the facet, whether it is an input or an
 * output facet, and the JSON pointer of the fragment inside the compiled schema.
 */
export const FacetProvenanceSchema = z.strictObject({
  facet: FacetNameSchema,
  direction: z.enum(['input', 'output']),
  pointer: z.string().max(1_000),
});

/** See {@link FacetProvenanceSchema}. */
export type FacetProvenance = z.infer<typeof FacetProvenanceSchema>;

/** Which of a branch's parallel copies a node is (`index` < `count`). */
export const BranchInfoSchema = z
  .strictObject({ index: z.int().min(0), count: z.int().min(1).max(50) })
  .refine((b) => b.index < b.count, { error: 'branch.index must be below branch.count', path: ['index'] });

/** How often a node is attempted (the first attempt included) and how long to wait in between. */
export const RetryPolicySchema = z.strictObject({
  maxAttempts: z.int().min(1).max(10),
  backoffMs: z
    .int()
    .min(0)
    .max(10 * 60 * 1000),
});

/**
 * What the caller's contract fixes for one node (DESIGN §8, "the contract binds the plan"): per
 * output facet, the fragment of the caller's schema its value must also satisfy (the executor
 * validates outputs against facet ∧ binding, and the agent is sent both); per input facet, the
 * fields the contract fixes (the variant count), merged over the facet's value at invocation; for
 * a lane, its part of the whole.
 */
export const NodeBindingsSchema = z.strictObject({
  outputs: z.record(FacetNameSchema, JsonObjectSchema).optional(),
  inputs: z.record(FacetNameSchema, JsonObjectSchema).optional(),
  /**
   * A lane's place in a concatenation: it produces the items `offset`… of `total` for `facet`, so
   * an agent can make its share differ from the other lanes' (the same inputs would repeat them).
   */
  part: z
    .strictObject({
      facet: FacetNameSchema,
      offset: z.int().min(0).max(10_000),
      total: z.int().min(1).max(10_000),
    })
    .optional(),
});

/** See {@link NodeBindingsSchema}. */
export type NodeBindings = z.infer<typeof NodeBindingsSchema>;

/**
 * How an orchestrator-managed node combines one facet from several upstream lanes: `concat` joins
 * the lanes' arrays in lane order (a contract asking for more variants than one call produces).
 */
export const MergeStrategySchema = z.enum(['concat']);

/** See {@link MergeStrategySchema}. */
export type MergeStrategy = z.infer<typeof MergeStrategySchema>;

/**
 * One step of a plan (spec 003 §5.7): the capability it calls (or the agent it derives one
 * from), the facets it reads and writes, the compiled contracts, and the constraints it
 * enforces. Virtual nodes (normalization, fallback) may have no capability.
 */
export const PlanNodeSchema = z.strictObject({
  id: IdentifierSchema,
  kind: PlanNodeKindSchema,
  label: ShortTextSchema,
  capabilityId: IdentifierSchema.optional(),
  agentId: IdentifierSchema.optional(),
  derived: z.boolean().optional(),
  derivedFrom: IdentifierSchema.optional(),
  inputFacets: z.array(FacetNameSchema).max(50),
  outputFacets: z.array(FacetNameSchema).max(50),
  inputSchema: JsonObjectSchema.optional(),
  outputSchema: JsonObjectSchema.optional(),
  provenance: z.array(FacetProvenanceSchema).max(500).optional(),
  instructions: LongTextSchema.optional(),
  rationale: LongTextSchema.optional(),
  enforces: z.array(IdentifierSchema).max(200).optional(),
  fallbackFor: IdentifierSchema.optional(),
  branch: BranchInfoSchema.optional(),
  retry: RetryPolicySchema.optional(),
  bindings: NodeBindingsSchema.optional(),
  merge: z.record(FacetNameSchema, MergeStrategySchema).optional(),
  metadata: JsonObjectSchema.optional(),
});

/** See {@link PlanNodeSchema}. */
export type PlanNode = z.infer<typeof PlanNodeSchema>;
