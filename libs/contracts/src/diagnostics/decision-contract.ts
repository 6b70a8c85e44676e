import { z } from 'zod';
import { JsonObjectSchema } from '../shared/json';

/**
 * What the runtime policy engine returns for every evaluation (spec 002, frozen v1.0). DENY is
 * always `hard` (the planner must replan or abort), ALLOW always `soft`; an engine error is a
 * DENY (fail closed). `suggestion` is a hint, never an instruction; `alternative` describes
 * constraints, never a patch.
 */
export const DecisionContractSchema = z
  .strictObject({
    result: z.enum(['ALLOW', 'DENY']),
    reason: z.string().min(1).max(4_000),
    suggestion: z.string().max(4_000).nullable().optional(),
    alternative: JsonObjectSchema.nullable().optional(),
    severity: z.enum(['hard', 'soft']),
  })
  .refine((d) => d.severity === (d.result === 'DENY' ? 'hard' : 'soft'), {
    error: 'DENY decisions are hard and ALLOW decisions are soft',
    path: ['severity'],
  });

/** See {@link DecisionContractSchema}. */
export type DecisionContract = z.infer<typeof DecisionContractSchema>;
