import { z } from 'zod';
import { PlanGraphSchema } from '../plan/plan-graph';
import { JsonObjectSchema } from '../shared/json';

/** The structured error codes a planner returns (spec 004 "Error Handling"). */
export const PlannerErrorCode = {
  PLANNER_INVALID_GOAL: 'PLANNER_INVALID_GOAL',
  PLANNER_NO_CAPABILITIES: 'PLANNER_NO_CAPABILITIES',
  PLANNER_RATE_LIMITED: 'PLANNER_RATE_LIMITED',
  PLANNER_TIMEOUT: 'PLANNER_TIMEOUT',
  PLANNER_MALFORMED_OUTPUT: 'PLANNER_MALFORMED_OUTPUT',
  PLANNER_UNRESOLVABLE: 'PLANNER_UNRESOLVABLE',
  PLANNER_INTERNAL: 'PLANNER_INTERNAL',
} as const;

/** One of the {@link PlannerErrorCode} values. */
export type PlannerErrorCode = (typeof PlannerErrorCode)[keyof typeof PlannerErrorCode];

/** Zod schema of {@link PlannerErrorCode}. */
export const PlannerErrorCodeSchema = z.enum(
  Object.values(PlannerErrorCode) as [PlannerErrorCode, ...PlannerErrorCode[]],
);

/**
 * A planner failure as a value (spec 004): planners return this, never throw across the
 * boundary. `retryable` says whether the same request may succeed later.
 */
export const PlannerErrorSchema = z.strictObject({
  code: PlannerErrorCodeSchema,
  message: z.string().min(1).max(4_000),
  retryable: z.boolean(),
  details: JsonObjectSchema,
});

/** See {@link PlannerErrorSchema}. */
export type PlannerError = z.infer<typeof PlannerErrorSchema>;

/**
 * A planner's success (spec 004 `PlannerOutput`): the plan, planner metadata (tokens, cost…),
 * and whether the output is byte-reproducible, which must agree with the plan's determinism mode.
 */
export const PlannerOutputSchema = z
  .strictObject({ plan: PlanGraphSchema, metadata: JsonObjectSchema, deterministic: z.boolean() })
  .refine((o) => o.deterministic === (o.plan.metadata.determinism === 'full'), {
    error: 'deterministic is true exactly when plan.metadata.determinism is "full"',
    path: ['deterministic'],
  });

/** See {@link PlannerOutputSchema}. */
export type PlannerOutput = z.infer<typeof PlannerOutputSchema>;
