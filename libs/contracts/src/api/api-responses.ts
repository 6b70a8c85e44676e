import { z } from 'zod';
import { CapabilityRegistrationSchema } from '../capabilities/capability-registration';
import { CapabilityOwnerSchema } from '../events/capability-payloads';
import { IdentifierSchema, IsoTimestampSchema } from '../shared/identifiers';
import { HitlDecisionSchema } from './api-requests';

/**
 * What the HTTP API answers besides runs (see api-runs.ts). These schemas document the answers
 * (the OpenAPI document is generated from them); the gateway builds the values.
 */

/** Every error of the API: a stable `code`, a readable `message`, and `details` (a path, limits…). */
export const ErrorResponseSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});

/** `POST runs/:id/cancel`. */
export const CancelRunResponseSchema = z.object({
  ok: z.literal(true),
  runId: IdentifierSchema,
  status: z.literal('cancelled'),
  /** True when the run had been cancelled before: nothing was appended this time. */
  alreadyCancelled: z.boolean(),
  /** The `run_cancelled` event: its id and store position (the SSE `id:`). */
  event: z.object({ id: z.string(), position: z.int().min(1) }),
});

/** See {@link CancelRunResponseSchema}. */
export type CancelRunResponse = z.infer<typeof CancelRunResponseSchema>;

/** `POST runs/:id/pause`. */
export const PauseRunResponseSchema = z.object({
  ok: z.literal(true),
  runId: IdentifierSchema,
  status: z.literal('paused'),
  /** The `run_paused` event: its id and store position (the SSE `id:`). */
  event: z.object({ id: z.string(), position: z.int().min(1) }),
});

/** See {@link PauseRunResponseSchema}. */
export type PauseRunResponse = z.infer<typeof PauseRunResponseSchema>;

/** `POST hitl/resolve`: `takesEffect` is `on_resume` when the run is paused. */
export const HitlResolveResponseSchema = z.object({
  ok: z.literal(true),
  runId: IdentifierSchema,
  requestId: IdentifierSchema,
  decision: HitlDecisionSchema,
  takesEffect: z.enum(['now', 'on_resume']),
  /** The store position of `hitl_resolved`. */
  position: z.int().min(1).optional(),
});

/** `POST runs/:id/policies/:policyId/trigger`: the events the firing appended. */
export const PolicyTriggerResponseSchema = z.object({
  ok: z.literal(true),
  runId: IdentifierSchema,
  policyId: IdentifierSchema,
  events: z.array(z.object({ type: z.string(), position: z.int().min(1) })),
});

const CapabilityStatusSchema = z.enum(['active', 'inactive', 'deregistered']);

/** One running instance of a capability, as the registry last saw it. */
export const CapabilityInstanceViewSchema = z.object({
  instanceId: IdentifierSchema,
  status: CapabilityStatusSchema,
  registeredAt: IsoTimestampSchema,
  /** Its last heartbeat (or registration). */
  lastSeenAt: IsoTimestampSchema,
});

/**
 * One capability as the registry sees it: the registration of its most recent live instance, its
 * status (active while any instance is), and every instance with its last heartbeat.
 */
export const CapabilityViewSchema = z.object({
  registration: CapabilityRegistrationSchema,
  status: CapabilityStatusSchema,
  activeInstances: z.int().min(0),
  registeredAt: IsoTimestampSchema,
  /** The latest heartbeat of any instance (its age is what a dashboard shows). */
  lastSeenAt: IsoTimestampSchema,
  instances: z.array(CapabilityInstanceViewSchema),
});

/** `GET capabilities`. */
export const CapabilityListResponseSchema = z.object({ capabilities: z.array(CapabilityViewSchema) });

/** `POST capabilities/register`. */
export const CapabilityRegisteredResponseSchema = z.object({
  ok: z.literal(true),
  capabilityId: IdentifierSchema,
  instanceId: IdentifierSchema,
  status: z.literal('active'),
  registeredAt: IsoTimestampSchema,
});

/** Body of `POST admin/capabilities/owner`. */
export const AssignOwnerRequestSchema = z.strictObject({
  capabilityId: IdentifierSchema,
  owner: CapabilityOwnerSchema,
});

/** `POST admin/capabilities/owner`. */
export const OwnerAssignedResponseSchema = z.object({
  ok: z.literal(true),
  capabilityId: IdentifierSchema,
  owner: z.string(),
  previousOwner: z.string().optional(),
});

/** `POST admin/projections/rebuild`: what each read model replayed. */
export const ProjectionsRebuiltResponseSchema = z.object({
  ok: z.literal(true),
  rebuilt: z.record(z.string(), z.unknown()),
  durationMs: z.number().min(0),
});

/** `GET /healthz`: the process is alive and its database answers. */
export const HealthResponseSchema = z.object({
  status: z.literal('ok'),
  mode: z.enum(['embedded', 'distributed']),
});

/** One readiness check: whether it holds, and what it found. */
export const ReadinessCheckSchema = z.object({ ok: z.boolean(), detail: z.string().optional() });

/**
 * `GET /readyz`: 200 once every check holds (the process takes work: runs, for the gateway), 503
 * with the checks that do not yet, and 503 `stopping` for good once the process shuts down. Embedded mode checks the whole system (migrations, the reference
 * agents registered, the read models caught up); a distributed service checks its own part.
 */
export const ReadinessResponseSchema = z.object({
  status: z.enum(['ready', 'starting', 'unready', 'stopping']),
  service: z.string(),
  mode: z.enum(['embedded', 'distributed']),
  checks: z.record(z.string(), ReadinessCheckSchema),
});

/** See {@link ReadinessResponseSchema}. */
export type ReadinessResponse = z.infer<typeof ReadinessResponseSchema>;
