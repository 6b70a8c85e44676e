import { z } from 'zod';
import type { AgentInvocation } from './agent.types';
import { InvalidInputError } from './errors';

const InvocationSchema = z.object({
  runId: z.string().min(1),
  nodeId: z.string().min(1),
  attempt: z.number().int().min(1),
  idempotencyKey: z.string().min(1).optional(),
  capabilityId: z.string().min(1),
  inputs: z.record(z.string(), z.unknown()),
  outputFacets: z.array(z.string().min(1)),
  instructions: z.string().optional(),
  context: z.object({
    objective: z.string(),
    specialInstructions: z.array(z.string()).optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
  }),
  deadlineMs: z.number().nonnegative().optional(),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  part: z
    .object({ facet: z.string().min(1), offset: z.number().int().min(0), total: z.number().int().min(1) })
    .optional(),
  feedback: z
    .object({
      attempt: z.number().int().min(1),
      errors: z
        .array(z.object({ path: z.string(), keyword: z.string().optional(), message: z.string() }))
        .max(200),
    })
    .optional(),
});

/** Parse an invocation where it enters the agent: a malformed one is `invalid_input`. */
export function parseInvocation(data: unknown, expectedCapabilityId: string): AgentInvocation {
  const parsed = InvocationSchema.safeParse(data);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new InvalidInputError(`malformed invocation: ${where}`);
  }
  const value = parsed.data;
  if (value.capabilityId !== expectedCapabilityId) {
    throw new InvalidInputError(`invocation for ${value.capabilityId} reached ${expectedCapabilityId}`);
  }
  return {
    ...value,
    idempotencyKey: value.idempotencyKey ?? `${value.runId}:${value.nodeId}:${value.attempt}`,
  };
}

/** Epoch ms of the deadline: values below 1e12 (before 2001 as a date) are durations from `receivedAt`. */
export function resolveDeadline(deadlineMs: number | undefined, receivedAt: number): number | undefined {
  if (deadlineMs === undefined) return undefined;
  return deadlineMs < 1e12 ? receivedAt + deadlineMs : deadlineMs;
}
