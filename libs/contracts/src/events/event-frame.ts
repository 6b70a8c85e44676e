import { z } from 'zod';
import { zodIssuesToValidationIssues } from '../normalizer/zod-issues';
import { IdentifierSchema, IsoTimestampSchema, PlanVersionSchema } from '../shared/identifiers';
import {
  EVENT_PAYLOAD_SCHEMAS,
  INTERNAL_EVENT_TYPES,
  RUN_EVENT_TYPES,
  isFlexEventType,
  type EventPayload,
  type FlexEventType,
} from './event-catalog';

const FrameBaseSchema = z.strictObject({
  type: z.string().refine(isFlexEventType, { error: 'unknown event type' }),
  id: z.string().min(1),
  timestamp: IsoTimestampSchema,
  runId: IdentifierSchema,
  nodeId: IdentifierSchema.optional(),
  planVersion: PlanVersionSchema.optional(),
  correlationId: z.string().min(1).max(200),
  payload: z.unknown().optional(),
  message: z.string().optional(),
});

interface FrameBase {
  id: string;
  timestamp: string;
  runId: string;
  nodeId?: string;
  planVersion?: number;
  correlationId: string;
  message?: string;
}

/** An SSE frame as the client sees it (DESIGN §7), typed by event type. */
export type FlexEventFrame = {
  [T in FlexEventType]: FrameBase & { type: T; payload?: EventPayload<T> };
}[FlexEventType];

/**
 * The `data:` of an SSE frame: `{ type, id, timestamp, runId, nodeId?, planVersion?,
 * correlationId, payload?, message? }` where `id` is the event's id (the SSE `id:` line carries its store position) and `payload`,
 * when present, is checked against the schema of `type`.
 */
export const FlexEventFrameSchema = FrameBaseSchema.transform((frame, ctx) => {
  if (frame.payload === undefined) return frame as FlexEventFrame;
  const parsed = (EVENT_PAYLOAD_SCHEMAS[frame.type as FlexEventType] as z.ZodType).safeParse(frame.payload, {
    reportInput: true,
  });
  if (parsed.success) return { ...frame, payload: parsed.data } as FlexEventFrame;
  for (const issue of zodIssuesToValidationIssues(parsed.error.issues)) {
    ctx.addIssue({
      code: 'custom',
      path: ['payload'],
      message: `${issue.path || '(payload)'}: ${issue.message}`,
      params: { code: issue.code },
    });
  }
  return z.NEVER;
}) as unknown as z.ZodType<FlexEventFrame>;

/** The run event types a client receives on a stream (every run type but the internal ones). */
export const STREAMED_EVENT_TYPES = RUN_EVENT_TYPES.filter(
  (type) => !(INTERNAL_EVENT_TYPES as readonly string[]).includes(type),
);

/**
 * The `data:` of an SSE frame as one union on `type`, each member with its payload's schema: what
 * the OpenAPI document describes (FlexEventFrameSchema checks a frame; this one documents them).
 */
export const FlexEventFrameUnionSchema = z.discriminatedUnion(
  'type',
  STREAMED_EVENT_TYPES.map((type) =>
    FrameBaseSchema.extend({
      type: z.literal(type),
      payload: (EVENT_PAYLOAD_SCHEMAS[type] as z.ZodType).optional(),
    }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
);
