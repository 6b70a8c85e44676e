import { z } from 'zod';
import { IdentifierSchema, PlanVersionSchema, Sha256HexSchema, ShortTextSchema } from '../shared/identifiers';
import { PlanNodeSchema } from './plan-node';

/** How reproducible a planner's output is (spec 004): byte-identical, same structure, or neither. */
export const DeterminismModeSchema = z.enum(['full', 'structural', 'none']);

/** See {@link DeterminismModeSchema}. */
export type DeterminismMode = z.infer<typeof DeterminismModeSchema>;

/** A dependency: `to` runs after `from` and reads its outputs. */
export const PlanEdgeSchema = z.strictObject({ from: IdentifierSchema, to: IdentifierSchema });

/** See {@link PlanEdgeSchema}. */
export type PlanEdge = z.infer<typeof PlanEdgeSchema>;

/** Token usage of an LLM planner call. */
export const TokenUsageSchema = z.strictObject({ input: z.int().min(0), output: z.int().min(0) });

/**
 * Who made a plan and how (spec 004 + spec 003 §5.7 "Metadata & versioning"). `inputHash` is the
 * `contentHash` of the normalized planner input, so a `full` planner can be replayed against it.
 */
export const PlanMetadataSchema = z.strictObject({
  plannerId: IdentifierSchema,
  plannerVersion: ShortTextSchema,
  determinism: DeterminismModeSchema,
  inputHash: Sha256HexSchema,
  model: ShortTextSchema.optional(),
  tokens: TokenUsageSchema.optional(),
  costCents: z.number().min(0).optional(),
  planVersionTag: ShortTextSchema.optional(),
  branchCount: z.int().min(0).optional(),
  derivedCapabilities: z.array(IdentifierSchema).optional(),
  normalizationInjected: z.boolean().optional(),
  fallbackReason: ShortTextSchema.optional(),
  resumed: z.boolean().optional(),
});

/** See {@link PlanMetadataSchema}. */
export type PlanMetadata = z.infer<typeof PlanMetadataSchema>;

/**
 * A plan: nodes and dependency edges, with its version and provenance. The schema checks shape
 * only; DAG integrity, unique ids and edge endpoints are the validator's proof (it reports them
 * as diagnostics instead of refusing to read the plan).
 */
export const PlanGraphSchema = z.strictObject({
  planVersion: PlanVersionSchema,
  nodes: z.array(PlanNodeSchema).min(1).max(500),
  edges: z.array(PlanEdgeSchema).max(5_000),
  metadata: PlanMetadataSchema,
});

/** See {@link PlanGraphSchema}. */
export type PlanGraph = z.infer<typeof PlanGraphSchema>;
