import { z } from 'zod';

const POSITION = /^(0|[1-9][0-9]{0,15})$/;
const HEX64 = /^[0-9a-f]{64}$/;

/** A query parameter holding an event position (the SSE `id:` of an event). */
const PositionParamSchema = z
  .string()
  .regex(POSITION, { error: 'expected an event position (a non-negative integer)' })
  .transform(Number)
  .refine(Number.isSafeInteger, { error: 'expected an event position (a non-negative integer)' });

/**
 * Query of `GET runs/:id`: `at`, the run as of that event position (time travel). A position past
 * the run's last event gives the run as of its last event; one before its first, a 404.
 */
export const RunDetailQuerySchema = z.strictObject({ at: PositionParamSchema.optional() });

/** See {@link RunDetailQuerySchema}. */
export type RunDetailQuery = z.infer<typeof RunDetailQuerySchema>;

/**
 * Query of `GET runs/:id/verify`: the head the stored chain must end at (from an export or a signed
 * head), both or neither. Without it, events cut from the end, or a chain rewritten from some event
 * on, go unseen (docs/AUDIT.md).
 */
export const ChainVerifyQuerySchema = z
  .strictObject({
    version: z.string().regex(POSITION, { error: 'expected a stream version' }).transform(Number).optional(),
    hash: z.string().regex(HEX64, { error: 'expected a SHA-256 hash (64 lowercase hex digits)' }).optional(),
  })
  .refine((q) => (q.version === undefined) === (q.hash === undefined), {
    error: 'give both version and hash (the expected head), or neither',
    path: ['hash'],
  });

/** See {@link ChainVerifyQuerySchema}. */
export type ChainVerifyQuery = z.infer<typeof ChainVerifyQuerySchema>;

/** Where a stream's chain ends; `signature` when the gateway has FLEX_CHAIN_SIGNING_KEY. */
export const ChainHeadSchema = z.object({
  streamId: z.string(),
  version: z.number().int().min(0),
  hash: z.string(),
  signature: z.object({ alg: z.literal('HMAC-SHA256'), value: z.string() }).optional(),
});

/**
 * Where an archived run's events are (retention, docs/AUDIT.md): the archive's location, when it was
 * archived, and the chain head kept in Postgres that the archive must end at.
 */
export const RunArchiveSchema = z.object({
  location: z.string(),
  archivedAt: z.string(),
  finishedAt: z.string(),
  events: z.number().int().min(1),
  head: ChainHeadSchema,
});

/** See {@link RunArchiveSchema}. */
export type RunArchive = z.infer<typeof RunArchiveSchema>;

/** What the first bad event of a chain shows. */
export const ChainProblemSchema = z.enum(['edited', 'inserted', 'deleted', 'reordered']);

/** Answer of `GET runs/:id/verify`: whether the run's stored events still form the chain written. */
export const ChainVerifyResponseSchema = z.object({
  ok: z.boolean(),
  runId: z.string(),
  /** Events checked. */
  events: z.number().int().min(0),
  /** Where the stored chain ends. */
  head: ChainHeadSchema,
  /** Set when the run is archived: its events were read from the archive and checked against this head. */
  archive: RunArchiveSchema.optional(),
  firstBad: z
    .object({
      /** Its index in the stream (version order); `events` when events are missing from the end. */
      index: z.number().int().min(0),
      position: z.number().int().nullable(),
      version: z.number().int(),
      eventId: z.string().nullable(),
      problem: ChainProblemSchema,
      detail: z.string(),
    })
    .optional(),
});

/** See {@link ChainVerifyResponseSchema}. */
export type ChainVerifyResponse = z.infer<typeof ChainVerifyResponseSchema>;
