import { z } from 'zod';
import { PlanNodeKindSchema } from '../plan/plan-node-kind';
import { IdentifierSchema } from '../shared/identifiers';

/**
 * Which nodes a trigger watches: static identifiers only (DESIGN §6; relative navigation such as
 * `relation` was removed with `goto`). Every given field must match; an empty selector matches
 * every node.
 */
export const NodeSelectorSchema = z.strictObject({
  nodeId: IdentifierSchema.optional(),
  kind: PlanNodeKindSchema.optional(),
  capabilityId: IdentifierSchema.optional(),
});

/** See {@link NodeSelectorSchema}. */
export type NodeSelector = z.infer<typeof NodeSelectorSchema>;
