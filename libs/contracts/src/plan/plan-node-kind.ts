import { z } from 'zod';

/** The node kinds of the plan taxonomy (spec 003 §5.7, "Plan taxonomy"). */
export const PLAN_NODE_KINDS = [
  'structuring',
  'branch',
  'execution',
  'transformation',
  'validation',
  'fallback',
] as const;

/** A plan node's kind: one of {@link PLAN_NODE_KINDS}. */
export const PlanNodeKindSchema = z.enum(PLAN_NODE_KINDS);

/** See {@link PlanNodeKindSchema}. */
export type PlanNodeKind = z.infer<typeof PlanNodeKindSchema>;
