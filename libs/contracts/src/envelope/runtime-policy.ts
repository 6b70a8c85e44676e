import { z } from 'zod';
import { IdentifierSchema } from '../shared/identifiers';
import { ActionSchema } from './action';
import { PolicyTriggerSchema } from './policy-trigger';

/**
 * A runtime guardrail (spec 003 §5.3): when `trigger` matches, request `action`. Policies never
 * change plan topology except by asking for a `replan`. `enabled: false` keeps it on record but inert.
 */
export const RuntimePolicySchema = z.strictObject({
  id: IdentifierSchema,
  enabled: z.boolean().optional(),
  trigger: PolicyTriggerSchema,
  action: ActionSchema,
});

/** See {@link RuntimePolicySchema}. */
export type RuntimePolicy = z.infer<typeof RuntimePolicySchema>;
