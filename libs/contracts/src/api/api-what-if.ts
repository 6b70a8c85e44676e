import { z } from 'zod';
import { IdentifierSchema, IsoTimestampSchema } from '../shared/identifiers';

/** The most runs one policy what-if looks at (`runs` listed, or `limit`). */
export const WHAT_IF_RUNS_MAX = 100;

/** The runs a what-if looks at when neither `runs` nor `limit` says. */
export const WHAT_IF_RUNS_DEFAULT = 20;

/**
 * Body of `POST admin/policy-what-if` (docs/AUDIT.md, "Policy what-if"): the candidate runtime
 * policies (`{ runtime: [...] }`, validated as an envelope's: see normalizeRuntimePolicies) and the
 * runs to re-decide with them: `runs` by id, or the most recent finished runs (created at or after
 * `since` when given), at most `limit`. More than {@link WHAT_IF_RUNS_MAX} runs is a 413.
 */
export const PolicyWhatIfRequestSchema = z.strictObject({
  policies: z.unknown(),
  /** `replace` (default): the candidates are each run's policies; `merge`: they replace same-id ones, the rest stay. */
  mode: z.enum(['replace', 'merge']).optional(),
  runs: z.array(IdentifierSchema).min(1).optional(),
  since: IsoTimestampSchema.optional(),
  limit: z.int().min(1).optional(),
});

/** See {@link PolicyWhatIfRequestSchema}. */
export type PolicyWhatIfRequest = z.infer<typeof PolicyWhatIfRequestSchema>;

const WhatIfChangeSchema = z.object({
  kind: z.enum(['deny', 'hitl', 'replan', 'emit', 'pause', 'outcome', 'other']),
  change: z.enum(['new', 'vanished', 'changed']),
  detail: z.string(),
  policyId: z.string().optional(),
  nodeId: z.string().optional(),
});

/** One run of a what-if: its verdict, where it first diverges, what would change there. */
export const WhatIfRunSchema = z.object({
  runId: z.string(),
  verdict: z.enum(['unchanged', 'changed', 'not_comparable']),
  events: z.int(),
  compared: z.int(),
  open: z.boolean(),
  outcome: z.object({ recorded: z.string(), whatIf: z.string(), changed: z.boolean().nullable() }),
  divergence: z
    .object({
      kind: z.string(),
      position: z.int().optional(),
      version: z.int(),
      type: z.string(),
      path: z.string(),
      recorded: z.unknown(),
      now: z.unknown(),
      component: z.string(),
      via: z.string().optional(),
    })
    .optional(),
  changes: z.array(WhatIfChangeSchema),
  policies: z.array(z.string()),
});

/** What `POST admin/policy-what-if` and `flex policy what-if --json` answer. */
export const PolicyWhatIfResponseSchema = z.object({
  policies: z.array(z.string()),
  mode: z.enum(['replace', 'merge']),
  runs: z.array(WhatIfRunSchema),
  totals: z.object({
    runs: z.int(),
    unchanged: z.int(),
    changed: z.int(),
    notComparable: z.int(),
    outcomesChanged: z.int(),
    outcomesUnknown: z.int(),
    byKind: z.record(z.string(), z.object({ new: z.int(), vanished: z.int(), changed: z.int() })),
  }),
});

/** See {@link PolicyWhatIfResponseSchema}. */
export type PolicyWhatIfResponse = z.infer<typeof PolicyWhatIfResponseSchema>;
