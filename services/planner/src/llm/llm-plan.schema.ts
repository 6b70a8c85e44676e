import { z } from 'zod';
import { PLAN_NODE_KINDS } from '@flex/contracts';

/** One node as the LLM proposes it: what to call, which facets it reads and writes, what it waits for. */
export const LlmPlanNodeSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/),
  kind: z.enum(PLAN_NODE_KINDS),
  capabilityId: z.string().min(1).max(128).nullable().optional(),
  inputFacets: z.array(z.string().min(1).max(64)).max(50),
  outputFacets: z.array(z.string().min(1).max(64)).max(50),
  dependsOn: z.array(z.string()).max(100),
  instructions: z.string().min(1).max(20_000).nullable().optional(),
  rationale: z.string().min(1).max(20_000).nullable().optional(),
});

/** The LLM's whole answer. */
export const LlmPlanSchema = z.strictObject({
  nodes: z.array(LlmPlanNodeSchema).min(1).max(100),
  rationale: z.string().max(20_000).nullable().optional(),
});

export type LlmPlan = z.infer<typeof LlmPlanSchema>;
export type LlmPlanNode = z.infer<typeof LlmPlanNodeSchema>;

const nullable = (type: string) => ({ type: [type, 'null'] });

/** The `response_format` sent with every request (OpenAI structured outputs, strict). */
export const LLM_PLAN_RESPONSE_FORMAT = {
  type: 'json_schema',
  json_schema: {
    name: 'flex_plan',
    strict: true,
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['nodes', 'rationale'],
      properties: {
        rationale: nullable('string'),
        nodes: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            required: [
              'id',
              'kind',
              'capabilityId',
              'inputFacets',
              'outputFacets',
              'dependsOn',
              'instructions',
              'rationale',
            ],
            properties: {
              id: { type: 'string' },
              kind: { type: 'string', enum: [...PLAN_NODE_KINDS] },
              capabilityId: nullable('string'),
              inputFacets: { type: 'array', items: { type: 'string' } },
              outputFacets: { type: 'array', items: { type: 'string' } },
              dependsOn: { type: 'array', items: { type: 'string' } },
              instructions: nullable('string'),
              rationale: nullable('string'),
            },
          },
        },
      },
    },
  },
} as const;
