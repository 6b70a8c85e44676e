import { z } from 'zod';
import { DiagnosticsBundleFields, DiagnosticsBundleSchema, checkDiagnosticsBundle } from '../diagnostics/diagnostics-bundle';
import { TaskEnvelopeSchema } from '../envelope/task-envelope';
import { NormalizationChangeSchema } from '../normalizer/validation-issue';
import { PlanGraphSchema, PlanMetadataSchema } from '../plan/plan-graph';
import { PlanNodeSummarySchema } from '../plan/plan-node-summary';
import { PlannerErrorSchema } from '../planner/planner-io';
import { AttemptSchema, IdentifierSchema, PlanVersionSchema, Sha256HexSchema, ShortTextSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';

/** The roles a bearer token can carry (DESIGN §7). */
export const PrincipalRoleSchema = z.enum(['client', 'operator', 'agent', 'admin']);

/** See {@link PrincipalRoleSchema}. */
export type PrincipalRole = z.infer<typeof PrincipalRoleSchema>;

/** `start`: a run exists; its normalized envelope and every normalization applied. */
export const StartPayloadSchema = z.strictObject({
  runId: IdentifierSchema,
  threadId: IdentifierSchema.optional(),
  envelope: TaskEnvelopeSchema,
  normalization: z.array(NormalizationChangeSchema),
  owner: z.strictObject({ principal: ShortTextSchema, role: PrincipalRoleSchema }),
});

/** `plan_requested`: the planner is asked for a draft (first attempt, after a rejection, or a replan). */
export const PlanRequestedPayloadSchema = z.strictObject({
  attempt: AttemptSchema,
  reason: z.enum(['initial', 'rejected', 'replan']),
  policyKeys: z.array(z.string()),
  capabilitySnapshot: z
    .strictObject({ count: z.int().min(0), capabilityIds: z.array(IdentifierSchema), hash: Sha256HexSchema })
    .optional(),
  diagnostics: DiagnosticsBundleSchema.optional(),
  replan: z
    .strictObject({ trigger: JsonObjectSchema, previousVersion: PlanVersionSchema, completedNodeIds: z.array(IdentifierSchema) })
    .optional(),
});

/** `plan_drafted` (internal, planner → validator): a draft and its hash; `plannerError` when it is a fallback draft. */
export const PlanDraftedPayloadSchema = z.strictObject({
  attempt: AttemptSchema,
  plan: PlanGraphSchema,
  planHash: Sha256HexSchema,
  plannerError: PlannerErrorSchema.optional(),
});

/** `plan_rejected`: the validator refused the draft; the diagnostics say why. */
export const PlanRejectedPayloadSchema = z.strictObject({
  attempt: AttemptSchema,
  diagnostics: DiagnosticsBundleSchema.refine((d) => d.status === 'rejected', { error: 'a rejected plan has status "rejected"', path: ['status'] }),
});

/** `plan_generated`: the first accepted plan, its trimmed nodes and the validator's findings. */
export const PlanGeneratedPayloadSchema = z
  .strictObject({
    planVersion: PlanVersionSchema,
    plan: PlanGraphSchema,
    nodes: z.array(PlanNodeSummarySchema),
    ...DiagnosticsBundleFields,
    status: z.enum(['accepted', 'accepted_with_findings']),
    planHash: Sha256HexSchema,
    metadata: PlanMetadataSchema.pick({ plannerId: true, plannerVersion: true, determinism: true, inputHash: true, resumed: true }),
  })
  .superRefine(checkDiagnosticsBundle)
  .refine((p) => p.plan.planVersion === p.planVersion, { error: 'plan.planVersion must equal planVersion', path: ['plan', 'planVersion'] });

/** `plan_updated`: a replan produced a new validated version; completed nodes keep their outputs. */
export const PlanUpdatedPayloadSchema = z
  .strictObject({
    previousVersion: PlanVersionSchema,
    version: PlanVersionSchema,
    plan: PlanGraphSchema,
    nodes: z.array(PlanNodeSummarySchema),
    trigger: JsonObjectSchema,
    planHash: Sha256HexSchema,
    /** The validator's findings on the new version (spec 000 §5.9.4), as in `plan_generated`. */
    status: z.enum(['accepted', 'accepted_with_findings']).optional(),
    satisfactionScore: DiagnosticsBundleFields.satisfactionScore.optional(),
    failures: DiagnosticsBundleFields.failures.optional(),
    warnings: DiagnosticsBundleFields.warnings.optional(),
    infos: DiagnosticsBundleFields.infos.optional(),
  })
  .refine((p) => p.version > p.previousVersion, { error: 'version must be above previousVersion', path: ['version'] })
  .refine((p) => p.plan.planVersion === p.version, { error: 'plan.planVersion must equal version', path: ['plan', 'planVersion'] });
