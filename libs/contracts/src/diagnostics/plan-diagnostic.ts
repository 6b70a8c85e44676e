import { z } from 'zod';
import { IdentifierSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';

/** Why a diagnostic was raised (spec 000 §5.9.3). */
export const DiagnosticCauseSchema = z.enum([
  'missing_producer',
  'missing_enforcer',
  'schema_incompatible',
  'unsatisfied_soft',
  'advisory',
]);

/** See {@link DiagnosticCauseSchema}. */
export type DiagnosticCause = z.infer<typeof DiagnosticCauseSchema>;

/** Diagnostic severity, which decides its bucket: hard → failures, soft → warnings, informational → infos. */
export const DiagnosticSeveritySchema = z.enum(['hard', 'soft', 'informational']);

/** See {@link DiagnosticSeveritySchema}. */
export type DiagnosticSeverity = z.infer<typeof DiagnosticSeveritySchema>;

/**
 * One validator finding about a plan, exactly per spec 000 §5.9.3. `constraint` is a readable
 * form of the constraint, `constraintId` its id; `suggestion` is what the planner should change.
 */
export const PlanDiagnosticSchema = z.strictObject({
  severity: DiagnosticSeveritySchema,
  status: z.enum(['unsatisfied', 'satisfied', 'unknown']),
  constraint: z.string().max(4_000).optional(),
  constraintId: z.string().max(200).optional(),
  nodeId: IdentifierSchema.optional(),
  capabilityId: IdentifierSchema.optional(),
  cause: DiagnosticCauseSchema,
  suggestion: z.string().max(8_000).optional(),
  details: JsonObjectSchema.optional(),
});

/** See {@link PlanDiagnosticSchema}. */
export type PlanDiagnostic = z.infer<typeof PlanDiagnosticSchema>;
