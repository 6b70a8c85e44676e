import { z } from 'zod';
import { HitlDecisionSchema } from '../api/api-requests';
import { DecisionContractSchema } from '../diagnostics/decision-contract';
import { RejectedDiagnosticsBundleSchema } from '../diagnostics/diagnostics-bundle';
import { ActionSchema } from '../envelope/action';
import { PlanNodeKindSchema } from '../plan/plan-node-kind';
import { FacetProvenanceSchema } from '../plan/plan-node';
import { RegistrySnapshotSchema } from '../planner/registry-snapshot';
import {
  AttemptSchema,
  IdentifierSchema,
  IsoTimestampSchema,
  LongTextSchema,
  PlanVersionSchema,
  ShortTextSchema,
  UnitScoreSchema,
} from '../shared/identifiers';
import { JsonObjectSchema, JsonValueSchema } from '../shared/json';

const NodeRef = { nodeId: IdentifierSchema, capabilityId: IdentifierSchema.optional() };

/** `node_start`: an attempt of a node begins; `idempotencyKey` is what the agent dedupes on. */
export const NodeStartPayloadSchema = z.strictObject({
  ...NodeRef,
  kind: PlanNodeKindSchema,
  attempt: AttemptSchema,
  idempotencyKey: z.string().min(1).max(400),
});

/** `node_complete`: an attempt produced output that passed the node's output contract. */
export const NodeCompletePayloadSchema = z.strictObject({
  ...NodeRef,
  attempt: AttemptSchema,
  output: JsonObjectSchema,
  durationMs: z.number().min(0),
  facetProvenance: z.array(FacetProvenanceSchema).optional(),
  /** What the agent reported spending on this attempt (runtime metrics `tokens` and `costCents`). */
  usage: z
    .strictObject({
      tokens: z.number().min(0).optional(),
      costCents: z.number().min(0).optional(),
      model: ShortTextSchema.optional(),
    })
    .optional(),
});

/** `node_error`: an attempt failed; `willRetry` with `retryInMs` when another attempt follows. */
export const NodeErrorPayloadSchema = z
  .strictObject({
    ...NodeRef,
    attempt: AttemptSchema,
    error: z.strictObject({
      code: z.string().min(1).max(200),
      message: z.string().max(8_000),
      retryable: z.boolean(),
    }),
    willRetry: z.boolean(),
    retryInMs: z.int().min(0).optional(),
    /**
     * Completed nodes downstream of this one that must run again: the node had completed and is
     * being repaired (the final output blamed it), so what it hands them will change.
     */
    reopens: z.array(IdentifierSchema).max(500).optional(),
    /**
     * Set when the attempt failed because its agent stayed unreachable (`agent_unreachable`): the
     * budget clock as the executor read it when it gave up, so a replay decides that again.
     */
    unreachable: z
      .strictObject({
        elapsedMs: z.int().min(0),
        budgetMs: z.int().min(0),
        deliveriesLeft: z.int(),
      })
      .optional(),
  })
  .refine((p) => p.willRetry || p.retryInMs === undefined, {
    error: 'retryInMs only accompanies willRetry',
    path: ['retryInMs'],
  });

/**
 * `validation_error`: a schema check failed; `scope` says which boundary. For `final_output`,
 * `nodeId` is the node the errors are blamed on (the one repaired), absent when none can be.
 */
export const ValidationErrorPayloadSchema = z.strictObject({
  scope: z.enum(['envelope', 'capability_input', 'capability_output', 'final_output']),
  nodeId: IdentifierSchema.optional(),
  /** The node attempt the errors are about (what a retry of that node is told to fix). */
  attempt: AttemptSchema.optional(),
  errors: z
    .array(
      z.strictObject({
        path: z.string(),
        keyword: z.string().optional(),
        message: z.string(),
        facet: z.string().optional(),
      }),
    )
    .min(1),
});

/**
 * `policy_triggered`: a runtime policy fired; the engine's decision and the action requested.
 * `actionDetails` is the spec's canonical action (003 §10.0.1): its `type`, its parameters
 * (`rationale`, `message`, `reason`, `event` and `payload`) and, for `hitl`, the nested follow-ups
 * `approveAction` / `rejectAction`. Events stored before it was named so carried it as `action`
 * (upcast on read).
 */
export const PolicyTriggeredPayloadSchema = z.strictObject({
  policyId: IdentifierSchema,
  trigger: JsonObjectSchema,
  actionDetails: ActionSchema,
  decision: DecisionContractSchema,
  nodeId: IdentifierSchema.optional(),
});

/** `hitl_request`: the run waits for an operator. */
export const HitlRequestPayloadSchema = z.strictObject({
  requestId: IdentifierSchema,
  nodeId: IdentifierSchema.optional(),
  policyId: IdentifierSchema.optional(),
  rationale: LongTextSchema,
  contractSummary: JsonObjectSchema.optional(),
  artifact: JsonValueSchema.optional(),
  /** `approval`: approve or reject (a policy's `hitl`); `node_output`: the operator supplies the node's output. */
  mode: z.enum(['approval', 'node_output']).optional(),
  /** The `hitl` action asked for: its `approveAction` / `rejectAction` run on resolution. */
  action: ActionSchema.optional(),
});

/** `hitl_resolved`: an operator decided. */
export const HitlResolvedPayloadSchema = z.strictObject({
  requestId: IdentifierSchema,
  decision: HitlDecisionSchema,
  note: z.string().max(4_000).optional(),
  payload: JsonValueSchema.optional(),
  operator: ShortTextSchema,
  /** Set when the decision's follow-up (if it took effect now) is in the same append, after it. */
  followUpsApplied: z.literal(true).optional(),
});

/**
 * `hitl_withdrawn`: a request no operator needs to answer any more, withdrawn by the executor: it
 * stood in for an agent that was unreachable, and that agent is back (its node runs again on it).
 * The request is closed; a decision sent for it afterwards is refused.
 */
export const HitlWithdrawnPayloadSchema = z.strictObject({
  requestId: IdentifierSchema,
  reason: LongTextSchema,
  /** The capability whose return withdrew it. */
  capabilityId: IdentifierSchema.optional(),
  /** When the registry last saw that capability (its view the withdrawal was decided on). */
  seenAt: IsoTimestampSchema.optional(),
});

/**
 * `replan_deferred`: a replan was asked for (a policy, an operator, a HITL follow-up) while HITL
 * requests were pending. A human gate holds: the replan waits for their decisions and is asked
 * (`plan_requested`, reason `replan`, with this trigger) once none is pending and the run is not
 * paused; a rejection that ends the run ends it too.
 */
export const ReplanDeferredPayloadSchema = z.strictObject({
  /** What asked for the replan, as `plan_requested.replan.trigger` will carry it. */
  trigger: JsonObjectSchema,
  /** The HITL requests pending when the replan was asked for. */
  waitingFor: z.array(IdentifierSchema).min(1).max(1_000),
  policyId: IdentifierSchema.optional(),
  nodeId: IdentifierSchema.optional(),
});

/**
 * `run_paused`: the run is snapshotted (policy state included) until resumed. Paused by a policy
 * (`policyId`) or by an operator (`pausedBy`, `POST runs/:id/pause`).
 */
export const RunPausedPayloadSchema = z.strictObject({
  reason: LongTextSchema,
  policyId: IdentifierSchema.optional(),
  pausedBy: ShortTextSchema.optional(),
  snapshot: JsonObjectSchema,
});

/** `run_resumed`: a paused run continues on the same plan version. */
export const RunResumedPayloadSchema = z.strictObject({
  expectedPlanVersion: PlanVersionSchema,
  resumedBy: ShortTextSchema,
  /** Set when the follow-ups of the decisions made during the pause are in the same append, after it. */
  followUpsApplied: z.literal(true).optional(),
});

/** `complete`: the final output, valid against the caller's schema and hard constraints. */
export const CompletePayloadSchema = z.strictObject({
  output: JsonObjectSchema,
  planVersion: PlanVersionSchema,
  satisfactionScore: UnitScoreSchema.optional(),
  observedSatisfaction: UnitScoreSchema.optional(),
});

/**
 * `run_failed`: the run ended without output; `code` is stable, `reason` readable. A run that fails
 * for planning or proof reasons carries the last `diagnostics` (status `rejected`: its failures name
 * what is missing); one the planner failed also carries the `registry` the planner saw.
 */
export const RunFailedPayloadSchema = z.strictObject({
  code: z.string().min(1).max(200),
  reason: z.string().min(1).max(8_000),
  diagnostics: RejectedDiagnosticsBundleSchema.optional(),
  registry: RegistrySnapshotSchema.optional(),
  nodeId: IdentifierSchema.optional(),
  /** For code `dead_lettered`: the message a service gave up on, and why. */
  deadLetter: z
    .strictObject({
      /** The service (its durable consumer) whose handler failed. */
      consumer: ShortTextSchema,
      eventId: z.string().min(1).max(200),
      eventType: ShortTextSchema,
      deliveryCount: z.int().min(1),
      /** The last error, as the bus recorded it. */
      error: z.string().min(1).max(4_000),
    })
    .optional(),
});

/**
 * `run_cancelled`: a caller or an operator ended the run (`POST runs/:id/cancel`). Terminal: HITL
 * requests still pending are closed (`closedHitlRequests`), an agent result arriving later and a
 * timer firing later record nothing.
 */
export const RunCancelledPayloadSchema = z.strictObject({
  /** Who cancelled (the API principal). */
  cancelledBy: ShortTextSchema,
  reason: z.string().min(1).max(2_000).optional(),
  /** The run's status when it was cancelled (`planning`, `running`, `awaiting_hitl`, `paused`). */
  from: IdentifierSchema,
  closedHitlRequests: z.array(IdentifierSchema).max(1_000),
});

/** `custom_event`: a runtime policy's `emit` action: a named event for observers; it changes nothing in the run. */
export const CustomEventPayloadSchema = z.strictObject({
  event: IdentifierSchema,
  payload: JsonObjectSchema.optional(),
  policyId: IdentifierSchema.optional(),
});

/**
 * `log`: an informational or debug line of the run (spec 003 §10.0.1). `source` says who wrote it:
 * `agent` (a line the agent logged while handling the node's attempt `attempt`, returned with its
 * answer) or a service (`executor`…). Secrets of the run never appear: an agent's lines have them
 * replaced by `[secret]` before they are appended. Lines recorded before `source` existed have none.
 */
export const LogPayloadSchema = z.strictObject({
  level: z.enum(['debug', 'info', 'warn', 'error']),
  message: z.string().min(1).max(8_000),
  data: JsonValueSchema.optional(),
  source: IdentifierSchema.optional(),
  nodeId: IdentifierSchema.optional(),
  attempt: AttemptSchema.optional(),
  capabilityId: IdentifierSchema.optional(),
});
