import { z } from 'zod';
import { PlannerPolicySchema } from './planner-policy';
import { RuntimePolicySchema } from './runtime-policy';

/** Caller policies (spec 003 §5.3): how to plan, and which runtime guardrails to apply. Policy ids are unique. */
export const TaskPoliciesSchema = z.strictObject({
  planner: PlannerPolicySchema.optional(),
  runtime: z
    .array(RuntimePolicySchema)
    .max(100)
    .superRefine((policies, ctx) => {
      const seen = new Set<string>();
      policies.forEach((policy, index) => {
        if (seen.has(policy.id))
          ctx.addIssue({
            code: 'custom',
            path: [index, 'id'],
            message: `duplicate policy id "${policy.id}"`,
            params: { code: 'duplicate' },
          });
        seen.add(policy.id);
      });
    })
    .optional(),
});

/** See {@link TaskPoliciesSchema}. */
export type TaskPolicies = z.infer<typeof TaskPoliciesSchema>;
