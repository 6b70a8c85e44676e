import { z } from 'zod';
import {
  AcceptedDiagnosticsBundleSchema,
  DiagnosticsBundleSchema,
  RejectedDiagnosticsBundleSchema,
} from '../diagnostics/diagnostics-bundle';
import { CapabilityRegistrationSchema } from '../capabilities/capability-registration';
import { TaskEnvelopeSchema } from '../envelope/task-envelope';
import { NormalizationChangeSchema } from '../normalizer/validation-issue';
import { PlanGraphSchema, PlanMetadataSchema } from '../plan/plan-graph';
import { PlanNodeSummarySchema } from '../plan/plan-node-summary';
import { PlannerErrorSchema } from '../planner/planner-io';
import { RegistrySnapshotSchema } from '../planner/registry-snapshot';
import {
  AttemptSchema,
  IdentifierSchema,
  PlanVersionSchema,
  Sha256HexSchema,
  ShortTextSchema,
} from '../shared/identifiers';
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

/**
 * Why the validator asks for the rule-based planner's draft: the configured planner (`from`) had
 * its drafts rejected up to the attempt limit, so the run gets one deterministic draft before it
 * fails (DESIGN §5.2: the rule-based draft is the LLM planner's fallback).
 */
export const PlannerFallbackSchema = z.strictObject({
  planner: z.literal('rule-based'),
  from: IdentifierSchema,
  reason: z.enum(['drafts_rejected']),
  message: z.string().min(1).max(4_000),
});

/** `plan_requested`: the planner is asked for a draft (first attempt, after a rejection, or a replan). */
export const PlanRequestedPayloadSchema = z.strictObject({
  attempt: AttemptSchema,
  reason: z.enum(['initial', 'rejected', 'replan']),
  policyKeys: z.array(z.string()),
  diagnostics: DiagnosticsBundleSchema.optional(),
  /** Set when this attempt must use the rule-based planner, and why. */
  fallback: PlannerFallbackSchema.optional(),
  replan: z
    .strictObject({
      trigger: JsonObjectSchema,
      previousVersion: PlanVersionSchema,
      completedNodeIds: z.array(IdentifierSchema),
    })
    .optional(),
});

/**
 * `plan_drafted` (internal, planner → validator): a draft, its hash and the registry the planner
 * drafted over; `plannerError` when it is a fallback draft. `registrations`: the registrations
 * themselves, sorted by id (what `registry` hashes), so a replay re-plans from the run's own record
 * (absent on drafts recorded before verified replay).
 */
export const PlanDraftedPayloadSchema = z.strictObject({
  attempt: AttemptSchema,
  plan: PlanGraphSchema,
  planHash: Sha256HexSchema,
  registry: RegistrySnapshotSchema,
  registrations: z.array(CapabilityRegistrationSchema).max(5_000).optional(),
  plannerError: PlannerErrorSchema.optional(),
});

/** Who drafted a plan (spec 004): planner id, version, determinism, input hash, and why a fallback drafted it. */
export const PlanProvenanceSchema = PlanMetadataSchema.pick({
  plannerId: true,
  plannerVersion: true,
  determinism: true,
  inputHash: true,
  resumed: true,
  fallbackReason: true,
});

/**
 * A `plan_rejected` from the validator: it refused the planner's draft (`planHash`, and who drafted it
 * in `metadata`). The validator leaves `source` out, as every rejection stored before planner
 * rejections existed does: a rejection without `source` is the validator's.
 */
const DraftRejectedPayloadSchema = z.strictObject({
  source: z.literal('validator').optional(),
  attempt: AttemptSchema,
  planHash: Sha256HexSchema,
  metadata: PlanProvenanceSchema,
  registry: RegistrySnapshotSchema,
  diagnostics: RejectedDiagnosticsBundleSchema,
});

/**
 * A `plan_rejected` from the planner (`source: 'planner'`): asked for a replan a node's failure asked
 * for, it found no plan at all (`plannerError`), so there is no draft, hash or provenance. The run
 * keeps its plan and the node goes on down its repair chain (docs/lifecycle.md); a planner error on any
 * other request fails the run instead (`run_failed` with the same diagnostics).
 */
const PlannerRejectedPayloadSchema = z.strictObject({
  source: z.literal('planner'),
  attempt: AttemptSchema,
  plannerError: PlannerErrorSchema,
  registry: RegistrySnapshotSchema,
  diagnostics: RejectedDiagnosticsBundleSchema,
});

/**
 * `plan_rejected`: no valid plan came of the request in flight; the diagnostics say why, `registry`
 * what the planner saw. Either the validator refused the draft (see {@link DraftRejectedPayloadSchema})
 * or, for a replan a node's failure asked for, the planner found none (see
 * {@link PlannerRejectedPayloadSchema}); `source` tells them apart.
 */
export const PlanRejectedPayloadSchema = z.discriminatedUnion('source', [
  DraftRejectedPayloadSchema,
  PlannerRejectedPayloadSchema,
]);

/** `plan_generated`: the first accepted plan, its trimmed nodes, the findings and the planner's registry. */
export const PlanGeneratedPayloadSchema = z
  .strictObject({
    planVersion: PlanVersionSchema,
    plan: PlanGraphSchema,
    nodes: z.array(PlanNodeSummarySchema),
    planHash: Sha256HexSchema,
    metadata: PlanProvenanceSchema,
    registry: RegistrySnapshotSchema,
    diagnostics: AcceptedDiagnosticsBundleSchema,
  })
  .refine((p) => p.plan.planVersion === p.planVersion, {
    error: 'plan.planVersion must equal planVersion',
    path: ['plan', 'planVersion'],
  });

/** `plan_updated`: a replan produced a new validated version; completed nodes keep their outputs. */
export const PlanUpdatedPayloadSchema = z
  .strictObject({
    previousVersion: PlanVersionSchema,
    version: PlanVersionSchema,
    plan: PlanGraphSchema,
    nodes: z.array(PlanNodeSummarySchema),
    trigger: JsonObjectSchema,
    planHash: Sha256HexSchema,
    registry: RegistrySnapshotSchema,
    /** The validator's findings on the new version (spec 000 §5.9.4), as in `plan_generated`. */
    diagnostics: AcceptedDiagnosticsBundleSchema,
  })
  .refine((p) => p.version > p.previousVersion, {
    error: 'version must be above previousVersion',
    path: ['version'],
  })
  .refine((p) => p.plan.planVersion === p.version, {
    error: 'plan.planVersion must equal version',
    path: ['plan', 'planVersion'],
  });
