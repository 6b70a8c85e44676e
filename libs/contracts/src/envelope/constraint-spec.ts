import { z } from 'zod';
import { JsonLogicRuleSchema } from '../jsonlogic/jsonlogic-rule-schema';
import { IdentifierSchema, LongTextSchema } from '../shared/identifiers';

/** Constraint severity (spec 000 §5.9.1): `hard` blocks a plan, `soft` lowers its score, `informational` advises. */
export const ConstraintLevelSchema = z.enum(['hard', 'soft', 'informational']);

/** See {@link ConstraintLevelSchema}. */
export type ConstraintLevel = z.infer<typeof ConstraintLevelSchema>;

/**
 * A declarative truth the final output must satisfy (spec 000 §5.9.1): a JSONLogic expression
 * over the output, with a severity. `constraintId` is what diagnostics refer to.
 */
export const ConstraintSpecSchema = z.strictObject({
  constraintId: IdentifierSchema.optional(),
  expr: JsonLogicRuleSchema,
  level: ConstraintLevelSchema,
  rationale: LongTextSchema.optional(),
  description: LongTextSchema.optional(),
});

/** See {@link ConstraintSpecSchema}. */
export type ConstraintSpec = z.infer<typeof ConstraintSpecSchema>;
