import { z } from 'zod';
import { IdentifierSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';
import { LIMITS } from '../shared/limits';
import { OutputContractSchema } from './output-contract';
import { TaskPoliciesSchema } from './task-policies';

/**
 * What a client submits (spec 003 §5.1): a natural-language objective, inputs, an exact output
 * contract, and policies. This is the canonical (normalized) shape; legacy shapes from the spec's
 * samples go through `normalizeEnvelope` first.
 */
export const TaskEnvelopeSchema = z.strictObject({
  objective: z
    .string()
    .max(LIMITS.objectiveMaxLength)
    .refine((s) => s.trim().length > 0, {
      error: 'objective must not be empty',
      params: { code: 'too_small' },
    }),
  inputs: JsonObjectSchema.default({}),
  constraints: JsonObjectSchema.optional(),
  outputContract: OutputContractSchema,
  policies: TaskPoliciesSchema.optional(),
  specialInstructions: z.array(z.string().min(1).max(2_000)).max(50).optional(),
  metadata: JsonObjectSchema.optional(),
  threadId: IdentifierSchema.optional(),
});

/** A validated, normalized envelope (see {@link TaskEnvelopeSchema}); `inputs` is always present. */
export type TaskEnvelope = z.output<typeof TaskEnvelopeSchema>;

/** What a caller may write before defaults apply (`inputs` optional). */
export type TaskEnvelopeInput = z.input<typeof TaskEnvelopeSchema>;
