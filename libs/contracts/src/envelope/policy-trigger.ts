import { z } from 'zod';
import { JsonLogicRuleSchema } from '../jsonlogic/jsonlogic-rule-schema';
import { ShortTextSchema } from '../shared/identifiers';
import { NodeSelectorSchema } from './node-selector';

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** The trigger kinds a runtime policy can watch. */
export const POLICY_TRIGGER_KINDS = [
  'onStart',
  'onNodeComplete',
  'onValidationFail',
  'onTimeout',
  'onMetricBelow',
  'manual',
] as const;

/** Trigger kinds that may carry a `selector` and a JSONLogic `condition`. */
export const NODE_TRIGGER_KINDS = ['onNodeComplete', 'onValidationFail'] as const;

/**
 * When a runtime policy fires (spec 003 §5.3). Node triggers may narrow the nodes with a
 * `selector` and the outputs with a JSONLogic `condition` evaluated over the node output.
 */
export const PolicyTriggerSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('onStart') }),
  z.strictObject({
    kind: z.literal('onNodeComplete'),
    selector: NodeSelectorSchema.optional(),
    condition: JsonLogicRuleSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('onValidationFail'),
    selector: NodeSelectorSchema.optional(),
    condition: JsonLogicRuleSchema.optional(),
  }),
  z.strictObject({ kind: z.literal('onTimeout'), ms: z.int().min(1).max(WEEK_MS) }),
  z.strictObject({ kind: z.literal('onMetricBelow'), metric: ShortTextSchema, threshold: z.number() }),
  z.strictObject({ kind: z.literal('manual') }),
]);

/** See {@link PolicyTriggerSchema}. */
export type PolicyTrigger = z.infer<typeof PolicyTriggerSchema>;

/** One of {@link POLICY_TRIGGER_KINDS}. */
export type PolicyTriggerKind = PolicyTrigger['kind'];
