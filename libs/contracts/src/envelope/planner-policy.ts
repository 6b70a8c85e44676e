import { z } from 'zod';
import { PlanNodeKindSchema } from '../plan/plan-node-kind';
import { IdentifierSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';

const KindListSchema = z.array(PlanNodeKindSchema).max(6);
const CapabilityListSchema = z.array(IdentifierSchema).max(100);

/** Structural limits on the plan (spec 003 §5.3). */
export const PlannerTopologySchema = z.strictObject({
  variantCount: z.int().min(1).max(50).optional(),
  maxDepth: z.int().min(1).max(64).optional(),
  requiredKinds: KindListSchema.optional(),
  forbiddenKinds: KindListSchema.optional(),
});

/** Capability selection preferences: ids the planner must, must not, should and should not use. */
export const PlannerSelectionSchema = z.strictObject({
  require: CapabilityListSchema.optional(),
  forbid: CapabilityListSchema.optional(),
  prefer: CapabilityListSchema.optional(),
  avoid: CapabilityListSchema.optional(),
});

/** High-level optimisation intent. */
export const PlannerOptimisationSchema = z.strictObject({
  objective: z.enum(['speed', 'quality', 'diversity', 'token_efficiency']).optional(),
  maxTokens: z.int().min(1).optional(),
});

/**
 * Caller guidance that shapes the plan (spec 003 §5.3): topology, capability selection,
 * optimisation, and free-form `directives` the planner may put in its prompt.
 */
export const PlannerPolicySchema = z
  .strictObject({
    topology: PlannerTopologySchema.optional(),
    selection: PlannerSelectionSchema.optional(),
    optimisation: PlannerOptimisationSchema.optional(),
    directives: JsonObjectSchema.optional(),
  })
  .superRefine((policy, ctx) => {
    const overlap = (a: readonly string[] = [], b: readonly string[] = []) => a.filter((x) => b.includes(x));
    for (const kind of overlap(policy.topology?.requiredKinds, policy.topology?.forbiddenKinds)) {
      ctx.addIssue({
        code: 'custom',
        path: ['topology', 'forbiddenKinds'],
        message: `kind "${kind}" is both required and forbidden`,
        params: { code: 'conflict' },
      });
    }
    for (const id of overlap(policy.selection?.require, policy.selection?.forbid)) {
      ctx.addIssue({
        code: 'custom',
        path: ['selection', 'forbid'],
        message: `capability "${id}" is both required and forbidden`,
        params: { code: 'conflict' },
      });
    }
  });

/** See {@link PlannerPolicySchema}. */
export type PlannerPolicy = z.infer<typeof PlannerPolicySchema>;
