import { z } from 'zod';
import { IsoTimestampSchema } from '../shared/identifiers';
import { JsonObjectSchema } from '../shared/json';

const StepIdSchema = z.string().min(1).max(128);

/** One step of spec 004's plan structure (snake_case, as the spec writes it). */
export const Spec004StepSchema = z.strictObject({
  step_id: StepIdSchema,
  skill: z.string().min(1).max(200),
  params: JsonObjectSchema,
  depends_on: z.array(StepIdSchema).default([]),
  on_error: z.enum(['abort', 'continue', 'retry']).default('abort'),
  retry_count: z.int().min(0).max(10).default(3),
  output_key: z.string().min(1).max(128).optional(),
});

/** See {@link Spec004StepSchema}. */
export type Spec004Step = z.output<typeof Spec004StepSchema>;

/** Spec 004's plan metadata block. */
export const Spec004PlanMetadataSchema = z.strictObject({
  planner: z.string().min(1),
  planner_version: z.string().min(1),
  model: z.string().optional(),
  input_tokens: z.int().min(0).optional(),
  output_tokens: z.int().min(0).optional(),
  cost_cents: z.number().min(0).optional(),
  generated_at: IsoTimestampSchema.optional(),
  deterministic: z.boolean().optional(),
});

/**
 * Spec 004's "Plan Structure Contract": ordered steps with dependencies and error policy. Flex
 * plans are `PlanGraph`s; `planGraphToSteps` gives this view of one for spec-004 tooling.
 */
export const Spec004PlanSchema = z
  .strictObject({ steps: z.array(Spec004StepSchema).min(1), metadata: Spec004PlanMetadataSchema.optional() })
  .superRefine((plan, ctx) => {
    const ids = new Set<string>();
    plan.steps.forEach((step, index) => {
      if (ids.has(step.step_id))
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index, 'step_id'],
          message: `duplicate step_id "${step.step_id}"`,
        });
      step.depends_on.forEach((dep, d) => {
        if (!ids.has(dep))
          ctx.addIssue({
            code: 'custom',
            path: ['steps', index, 'depends_on', d],
            message: `"${dep}" is not an earlier step`,
          });
      });
      ids.add(step.step_id);
    });
  });

/** See {@link Spec004PlanSchema}. */
export type Spec004Plan = z.output<typeof Spec004PlanSchema>;
