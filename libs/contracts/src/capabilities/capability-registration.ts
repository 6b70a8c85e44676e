import { z } from 'zod';
import { FacetNameSchema } from '../facets/facet-definition';
import { checkUnique, IdentifierSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';

const TraitListSchema = z.array(z.string().min(1).max(100)).max(50);
const FacetListSchema = z
  .array(FacetNameSchema)
  .max(50)
  .superRefine((names, ctx) => checkUnique(names, ctx, 'facet'));

/** Who answers a capability: a model-backed agent or a person (spec 001 §5.6.2). */
export const AgentTypeSchema = z.enum(['human', 'ai']);

/** See {@link AgentTypeSchema}. */
export type AgentType = z.infer<typeof AgentTypeSchema>;

/** Heartbeat expectations; a registration silent for `timeoutSeconds` (default 3 intervals) goes inactive. */
export const HeartbeatSchema = z
  .strictObject({
    intervalSeconds: z.int().min(1).max(86_400),
    timeoutSeconds: z
      .int()
      .min(1)
      .max(7 * 86_400)
      .optional(),
  })
  .refine((h) => h.timeoutSeconds === undefined || h.timeoutSeconds >= h.intervalSeconds, {
    error: 'timeoutSeconds must be at least intervalSeconds',
    path: ['timeoutSeconds'],
  });

/**
 * What an agent posts to register a capability (spec 003 §5.6.2, with spec 001's `agentType`,
 * which defaults to `ai` because 003's example omits it). `inputContract` / `outputContract`
 * name catalog facets; the registry checks them against the catalog and their directions.
 * `instanceId` distinguishes several running instances of one capability.
 */
export const CapabilityRegistrationSchema = z.strictObject({
  capabilityId: IdentifierSchema,
  agentType: AgentTypeSchema.default('ai'),
  version: z.string().min(1).max(64),
  displayName: z.string().min(1).max(200),
  summary: z.string().min(1).max(2_000),
  inputTraits: z
    .strictObject({
      languages: TraitListSchema.optional(),
      formats: TraitListSchema.optional(),
      strengths: TraitListSchema.optional(),
      limitations: TraitListSchema.optional(),
    })
    .optional(),
  inputContract: FacetListSchema,
  outputContract: FacetListSchema.min(1),
  cost: z
    .strictObject({
      tier: z.string().min(1).max(32).optional(),
      estimatedTokens: z.int().min(0).optional(),
      costCents: z.number().min(0).optional(),
    })
    .optional(),
  preferredModels: z.array(z.string().min(1).max(200)).max(20).optional(),
  heartbeat: HeartbeatSchema.optional(),
  metadata: JsonObjectSchema.optional(),
  instanceId: IdentifierSchema.optional(),
});

/** A validated registration (`agentType` always present). */
export type CapabilityRegistration = z.output<typeof CapabilityRegistrationSchema>;

/** What an agent may post before defaults apply (`agentType` optional). */
export type CapabilityRegistrationInput = z.input<typeof CapabilityRegistrationSchema>;

/** A capability's availability: `inactive` after a missed heartbeat, `deregistered` after a goodbye. */
export const CapabilityStatusSchema = z.enum(['active', 'inactive', 'deregistered']);

/** See {@link CapabilityStatusSchema}. */
export type CapabilityStatus = z.infer<typeof CapabilityStatusSchema>;
