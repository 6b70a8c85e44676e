import { z } from 'zod';
import { IdentifierSchema, PlanVersionSchema } from '../shared/identifiers';
import { JsonValueSchema } from '../shared/json';
import { checkStorableText } from '../shared/storable-text';

/**
 * Body of `POST /api/v1/flex/run.resume`: continue a paused run without replanning, only if
 * `expectedPlanVersion` is still the current plan version (409 otherwise).
 */
export const ResumeRequestSchema = z.strictObject({
  runId: IdentifierSchema,
  expectedPlanVersion: PlanVersionSchema,
  /**
   * The pause this resume is for: the `id` of its `run_paused` event (as the event stream shows
   * it). Given, a resume of a run that was resumed and paused again since is 409: of two operators
   * resuming the same pause, exactly one resumes it. Absent: whatever pause the run is in.
   */
  pauseId: IdentifierSchema.optional(),
});

/** See {@link ResumeRequestSchema}. */
export type ResumeRequest = z.infer<typeof ResumeRequestSchema>;

/** An operator's verdict on a HITL request. */
export const HitlDecisionSchema = z.enum(['approve', 'reject']);

/** See {@link HitlDecisionSchema}. */
export type HitlDecision = z.infer<typeof HitlDecisionSchema>;

/**
 * Body of `POST /api/v1/flex/hitl/resolve`: approval runs the policy's `approveAction` (default
 * resume), rejection its `rejectAction` (default fail). `payload` carries operator edits, if any.
 */
export const HitlResolveRequestSchema = z
  .strictObject({
    runId: IdentifierSchema,
    requestId: IdentifierSchema,
    decision: HitlDecisionSchema,
    note: z.string().max(4_000).optional(),
    payload: JsonValueSchema.optional(),
  })
  // A NUL or a lone surrogate could not be stored: a 400 naming the path, not a failed append.
  .superRefine(checkStorableText);

/** See {@link HitlResolveRequestSchema}. */
export type HitlResolveRequest = z.infer<typeof HitlResolveRequestSchema>;

/**
 * Body of `POST /api/v1/flex/runs/:id/cancel` (optional): why the run is cancelled, recorded in
 * `run_cancelled`.
 */
export const CancelRunRequestSchema = z
  .strictObject({ reason: z.string().min(1).max(2_000).optional() })
  .superRefine(checkStorableText);

/** See {@link CancelRunRequestSchema}. */
export type CancelRunRequest = z.infer<typeof CancelRunRequestSchema>;

/**
 * Body of `POST /api/v1/flex/runs/:id/pause` (optional): why an operator pauses the run, recorded
 * in `run_paused`.
 */
export const PauseRunRequestSchema = z
  .strictObject({ reason: z.string().min(1).max(2_000).optional() })
  .superRefine(checkStorableText);

/** See {@link PauseRunRequestSchema}. */
export type PauseRunRequest = z.infer<typeof PauseRunRequestSchema>;

/**
 * The query of `GET /api/v1/flex/runs/:id/events`. `follow`: `true` (the default) streams live until
 * the run ends; `false` sends the events stored now and ends. Any other parameter is a 400 naming it.
 */
export const RunEventsQuerySchema = z.strictObject({
  follow: z.enum(['true', 'false'], { error: 'expected true or false' }).optional(),
});

/** See {@link RunEventsQuerySchema}. */
export type RunEventsQuery = z.infer<typeof RunEventsQuerySchema>;
