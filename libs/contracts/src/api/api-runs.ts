import { z } from 'zod';
import { DiagnosticsBundleSchema } from '../diagnostics/diagnostics-bundle';
import { TaskEnvelopeSchema } from '../envelope/task-envelope';
import { FacetNameSchema } from '../facets/facet-definition';
import { PlanEdgeSchema, PlanGraphSchema, PlanMetadataSchema } from '../plan/plan-graph';
import { PlanNodeSchema } from '../plan/plan-node';
import { IdentifierSchema, IsoTimestampSchema, Sha256HexSchema } from '../shared/identifiers';
import { JsonObjectSchema, JsonValueSchema } from '../shared/json';
import { RunArchiveSchema } from './api-audit';

/** Where a run stands (the run model's status union, docs/lifecycle.md). */
export const RUN_STATUSES = [
  'planning',
  'running',
  'awaiting_hitl',
  'paused',
  'completed',
  'failed',
  'cancelled',
] as const;

/** One of {@link RUN_STATUSES}. */
export const RunStatusSchema = z.enum(RUN_STATUSES);

/** See {@link RunStatusSchema}. */
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** The most runs one page of `GET runs` holds. */
export const RUNS_PAGE_MAX = 500;

/** The runs one page of `GET runs` holds when `limit` is not given. */
export const RUNS_PAGE_DEFAULT = 50;

const PageLimitSchema = z
  .string()
  .regex(/^[0-9]{1,4}$/, { error: `expected an integer from 1 to ${RUNS_PAGE_MAX}` })
  .transform(Number)
  .pipe(
    z
      .int()
      .min(1, { error: `expected an integer from 1 to ${RUNS_PAGE_MAX}` })
      .max(RUNS_PAGE_MAX, { error: `expected an integer from 1 to ${RUNS_PAGE_MAX}` }),
  );

const StatusListSchema = z
  .string()
  .regex(/^[a-z_]+(,[a-z_]+)*$/, {
    error: `expected one or more of ${RUN_STATUSES.join(', ')}, comma-separated`,
  })
  .transform((list) => [...new Set(list.split(','))])
  .pipe(z.array(RunStatusSchema));

/**
 * The query of `GET /api/v1/flex/runs`: a page of runs, newest first (by creation time, then run id),
 * narrowed by filters that all hold. Every parameter is optional; any other is a 400 naming it.
 * - `limit`: runs per page, 1 to {@link RUNS_PAGE_MAX} (default {@link RUNS_PAGE_DEFAULT});
 * - `status`: one or more {@link RUN_STATUSES}, comma-separated;
 * - `capability`: runs whose current plan has a node on this capability;
 * - `since` / `until`: created at or after `since`, and before `until` (ISO-8601 timestamps);
 * - `cursor`: the `next` of the previous page (opaque): the page after it, in the same order.
 */
export const RunListQuerySchema = z.strictObject({
  limit: PageLimitSchema.optional(),
  status: StatusListSchema.optional(),
  capability: IdentifierSchema.optional(),
  since: IsoTimestampSchema.optional(),
  until: IsoTimestampSchema.optional(),
  cursor: z.string().min(1).max(400).optional(),
});

/** See {@link RunListQuerySchema} (parsed: `limit` a number, `status` a list). */
export type RunListQuery = z.output<typeof RunListQuerySchema>;

/** Why a run failed; `diagnostics` when it failed for planning or proof reasons. */
export const RunFailureSchema = z.object({
  code: z.string(),
  reason: z.string(),
  diagnostics: DiagnosticsBundleSchema.optional(),
});

/** One run in `GET runs`. */
export const RunSummarySchema = z.object({
  runId: IdentifierSchema,
  status: RunStatusSchema,
  objective: z.string(),
  /** The current plan version; 0 until a plan is accepted. */
  planVersion: z.int().min(0),
  satisfactionScore: z.number().nullable(),
  observedSatisfaction: z.number().nullable(),
  failure: RunFailureSchema.nullable(),
  createdAt: IsoTimestampSchema,
  updatedAt: IsoTimestampSchema,
  lastEventType: z.string(),
  /**
   * The store position of the last event of the run this answer knows: the read model is as of it
   * (a client following the run's stream can tell whether what it saw since is newer).
   */
  lastPosition: z.int().min(1),
});

/** See {@link RunSummarySchema}. */
export type RunSummary = z.infer<typeof RunSummarySchema>;

/** What `GET runs` answers: one page, and the cursor of the next (`null` on the last page). */
export const RunListResponseSchema = z.object({
  runs: z.array(RunSummarySchema),
  next: z.string().nullable(),
});

/** See {@link RunListResponseSchema}. */
export type RunListResponse = z.infer<typeof RunListResponseSchema>;

/** The latest value of an output facet, and the node that produced it. */
export const FacetValueSchema = z.object({ value: JsonValueSchema, nodeId: IdentifierSchema });

/**
 * A run's latest plan snapshot (spec 003 §10.1 `latestSnapshot`): the current plan version's graph
 * (nodes with their compiled contracts, edges), the nodes not yet done (`pendingNodeIds`: neither
 * completed nor skipped), and the latest value of every output facet produced so far.
 */
export const PlanSnapshotSchema = z.object({
  version: z.int().min(1),
  planHash: Sha256HexSchema,
  createdAt: IsoTimestampSchema,
  nodes: z.array(PlanNodeSchema),
  edges: z.array(PlanEdgeSchema),
  pendingNodeIds: z.array(IdentifierSchema),
  facets: z.record(FacetNameSchema, FacetValueSchema),
});

/** See {@link PlanSnapshotSchema}. */
export type PlanSnapshot = z.infer<typeof PlanSnapshotSchema>;

/** One accepted plan version (spec 003 §10.1 `planVersions`). */
export const PlanVersionViewSchema = z.object({
  version: z.int().min(1),
  planHash: Sha256HexSchema,
  /** The validator's verdict on it (`accepted`, `accepted_with_findings`). */
  status: z.string(),
  satisfactionScore: z.number().nullable(),
  diagnostics: DiagnosticsBundleSchema.nullable(),
  /** The hash of the registry snapshot the plan was drafted over. */
  registryHash: Sha256HexSchema.nullable(),
  /** The hash of the caller's output schema the plan was made for (the run's `schemaHash`). */
  schemaHash: Sha256HexSchema,
  /** The nodes of this version not yet completed when it was accepted: the work it set out to do. */
  pendingNodeIds: z.array(IdentifierSchema),
  /** Who drafted it and how (spec 004): planner id, version, determinism, input hash. */
  planner: PlanMetadataSchema,
  createdAt: IsoTimestampSchema,
  plan: PlanGraphSchema,
});

/** See {@link PlanVersionViewSchema}. */
export type PlanVersionView = z.infer<typeof PlanVersionViewSchema>;

/** One node of the current plan, as the run's ledger has it. */
export const RunNodeViewSchema = z.object({
  nodeId: IdentifierSchema,
  kind: z.string(),
  capabilityId: IdentifierSchema.nullable(),
  status: z.string(),
  attempt: z.int().min(0),
  output: JsonObjectSchema.nullable(),
  error: JsonObjectSchema.nullable(),
  updatedAt: IsoTimestampSchema,
});

/** One HITL request of a run. */
export const RunHitlRequestViewSchema = z.object({
  requestId: IdentifierSchema,
  nodeId: IdentifierSchema.nullable(),
  /**
   * `pending`; `decided` (while the run is paused: takes effect on resume); `resolved` (in effect);
   * `cancelled` (closed with its run, which failed or was cancelled, before it took effect).
   */
  status: z.enum(['pending', 'decided', 'resolved', 'cancelled']),
  rationale: z.string().nullable(),
  decision: z.enum(['approve', 'reject']).nullable(),
  createdAt: IsoTimestampSchema,
  /** When the request got its status, if it is no longer pending. */
  resolvedAt: IsoTimestampSchema.nullable(),
});

/**
 * `GET runs/:id` (spec 003 §10.1): the run with its envelope (secrets are references, never
 * values) and the hash of its output schema; the final output with the node each facet came from;
 * every accepted plan version; the latest snapshot; the node ledger; the HITL requests.
 */
export const RunDetailSchema = z.object({
  ok: z.literal(true),
  run: RunSummarySchema.extend({
    owner: z.string(),
    threadId: IdentifierSchema.nullable(),
    /** The normalized envelope, as `start` recorded it. */
    envelope: TaskEnvelopeSchema,
    /** `contentHash` (sha256 of canonical JSON) of `envelope.outputContract.schema`. */
    schemaHash: Sha256HexSchema,
    /**
     * Set when retention archived the run: its events left Postgres for this archive, and the read
     * models keep only its summary and output (no plan versions, nodes or HITL requests).
     */
    archive: RunArchiveSchema.optional(),
  }),
  output: z
    .object({
      output: JsonObjectSchema,
      planVersion: z.int().min(1),
      completedAt: IsoTimestampSchema,
      /** Which node produced each top-level facet of the output. */
      facetProvenance: z.array(z.object({ facet: z.string(), nodeId: IdentifierSchema })),
    })
    .nullable(),
  planVersions: z.array(PlanVersionViewSchema),
  /** `null` until a plan is accepted. */
  latestSnapshot: PlanSnapshotSchema.nullable(),
  nodes: z.array(RunNodeViewSchema),
  hitlRequests: z.array(RunHitlRequestViewSchema),
});

/** See {@link RunDetailSchema}. */
export type RunDetail = z.infer<typeof RunDetailSchema>;
