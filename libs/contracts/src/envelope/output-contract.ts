import { z } from 'zod';
import { JsonObjectSchema, nestingExceeds } from '../shared/json';
import { LIMITS } from '../shared/limits';
import { ConstraintSpecSchema } from './constraint-spec';

/** A caller's JSON Schema (draft-07 style), capped at {@link LIMITS.schemaMaxDepth} levels. */
export const JsonSchemaObjectSchema = JsonObjectSchema.superRefine((schema, ctx) => {
  if (nestingExceeds(schema, LIMITS.schemaMaxDepth)) {
    ctx.addIssue({
      code: 'custom',
      message: `JSON Schema nests deeper than ${LIMITS.schemaMaxDepth} levels`,
      params: { code: 'schema_too_deep' },
    });
  }
});

/**
 * What the caller wants back (spec 000 §5.9.1): the exact JSON Schema of the final output,
 * optional post-processing hints, and JSONLogic constraints over that output.
 */
export const OutputContractSchema = z
  .strictObject({
    schema: JsonSchemaObjectSchema,
    hints: JsonObjectSchema.optional(),
    constraints: z.array(ConstraintSpecSchema).max(200).optional(),
  })
  .superRefine((contract, ctx) => {
    const seen = new Set<string>();
    (contract.constraints ?? []).forEach((constraint, index) => {
      const id = constraint.constraintId;
      if (id === undefined) return;
      if (seen.has(id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['constraints', index, 'constraintId'],
          message: `duplicate constraintId "${id}"`,
          params: { code: 'duplicate' },
        });
      }
      seen.add(id);
    });
  });

/** See {@link OutputContractSchema}. */
export type OutputContract = z.infer<typeof OutputContractSchema>;
