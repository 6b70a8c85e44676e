import { z } from 'zod';
import { IdentifierSchema, LongTextSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';
import { LIMITS } from '../shared/limits';

/** The canonical action verbs (spec 003 "Δ Policy Simplification": `goto` is gone). */
export const ACTION_TYPES = ['replan', 'hitl', 'fail', 'pause', 'emit'] as const;

/** One of {@link ACTION_TYPES}. */
export type ActionType = (typeof ACTION_TYPES)[number];

/** Ask the planner for a new plan version; completed nodes keep their outputs. */
export interface ReplanAction {
  type: 'replan';
  rationale?: string;
}

/**
 * Ask a human. On approval `approveAction` runs (default: resume); on rejection `rejectAction`
 * runs (default: fail).
 */
export interface HitlAction {
  type: 'hitl';
  rationale?: string;
  approveAction?: Action;
  rejectAction?: Action;
}

/** End the run as failed. */
export interface FailAction {
  type: 'fail';
  message?: string;
}

/** Snapshot the run, policy state included, until `run.resume`. */
export interface PauseAction {
  type: 'pause';
  reason?: string;
}

/** Publish a custom event for observers; does not change the run. */
export interface EmitAction {
  type: 'emit';
  event: string;
  payload?: Record<string, unknown>;
}

/** What a runtime policy asks for when it fires. */
export type Action = ReplanAction | HitlAction | FailAction | PauseAction | EmitAction;

const ReplanActionSchema = z.strictObject({
  type: z.literal('replan'),
  rationale: LongTextSchema.optional(),
});
const FailActionSchema = z.strictObject({ type: z.literal('fail'), message: LongTextSchema.optional() });
const PauseActionSchema = z.strictObject({ type: z.literal('pause'), reason: LongTextSchema.optional() });
const EmitActionSchema = z.strictObject({
  type: z.literal('emit'),
  event: IdentifierSchema,
  payload: JsonObjectSchema.optional(),
});

const TooDeepSchema = z
  .unknown()
  .superRefine((_value, ctx) => {
    ctx.addIssue({
      code: 'custom',
      message: `actions nest at most ${LIMITS.actionMaxDepth} levels deep`,
      params: { code: 'action_too_deep' },
    });
  })
  .optional();

// Built level by level instead of with z.lazy: the depth cap is structural, so a hostile
// nesting fails at the first level too deep instead of recursing through all of it.
function actionAtDepth(depth: number): z.ZodType<Action> {
  const nested = depth < LIMITS.actionMaxDepth ? actionAtDepth(depth + 1).optional() : TooDeepSchema;
  const hitl = z.strictObject({
    type: z.literal('hitl'),
    rationale: LongTextSchema.optional(),
    approveAction: nested,
    rejectAction: nested,
  });
  return z.discriminatedUnion('type', [
    ReplanActionSchema,
    hitl,
    FailActionSchema,
    PauseActionSchema,
    EmitActionSchema,
  ]) as unknown as z.ZodType<Action>;
}

/**
 * The runtime action union `replan | hitl | fail | pause | emit`. `hitl` may nest follow-up
 * actions up to {@link LIMITS.actionMaxDepth} levels in all.
 */
export const ActionSchema: z.ZodType<Action> = actionAtDepth(1);
