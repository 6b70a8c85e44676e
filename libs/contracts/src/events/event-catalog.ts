import type { z } from 'zod';
import { zodIssuesToValidationIssues } from '../normalizer/zod-issues';
import type { ValidationIssue } from '../normalizer/validation-issue';
import { err, ok, type Result } from '../shared/result';
import * as capability from './capability-payloads';
import * as execution from './execution-payloads';
import * as planning from './planning-payloads';

/** Payload schema per event type: the source of truth for what each event carries. */
export const EVENT_PAYLOAD_SCHEMAS = {
  start: planning.StartPayloadSchema,
  plan_requested: planning.PlanRequestedPayloadSchema,
  plan_drafted: planning.PlanDraftedPayloadSchema,
  plan_rejected: planning.PlanRejectedPayloadSchema,
  plan_generated: planning.PlanGeneratedPayloadSchema,
  plan_updated: planning.PlanUpdatedPayloadSchema,
  node_start: execution.NodeStartPayloadSchema,
  node_complete: execution.NodeCompletePayloadSchema,
  node_error: execution.NodeErrorPayloadSchema,
  validation_error: execution.ValidationErrorPayloadSchema,
  policy_triggered: execution.PolicyTriggeredPayloadSchema,
  hitl_request: execution.HitlRequestPayloadSchema,
  hitl_resolved: execution.HitlResolvedPayloadSchema,
  hitl_withdrawn: execution.HitlWithdrawnPayloadSchema,
  replan_deferred: execution.ReplanDeferredPayloadSchema,
  run_paused: execution.RunPausedPayloadSchema,
  run_resumed: execution.RunResumedPayloadSchema,
  custom_event: execution.CustomEventPayloadSchema,
  complete: execution.CompletePayloadSchema,
  run_failed: execution.RunFailedPayloadSchema,
  run_cancelled: execution.RunCancelledPayloadSchema,
  log: execution.LogPayloadSchema,
  capability_registered: capability.CapabilityRegisteredPayloadSchema,
  capability_status_changed: capability.CapabilityStatusChangedPayloadSchema,
  capability_deregistered: capability.CapabilityDeregisteredPayloadSchema,
  capability_owner_assigned: capability.CapabilityOwnerAssignedPayloadSchema,
} as const;

/** Every event type Flex stores or streams. */
export type FlexEventType = keyof typeof EVENT_PAYLOAD_SCHEMAS;

/** The parsed payload of an event of type `T` (defaults applied). */
export type EventPayload<T extends FlexEventType> = z.output<(typeof EVENT_PAYLOAD_SCHEMAS)[T]>;

/** What a producer may write for an event of type `T` (before defaults apply). */
export type EventPayloadInput<T extends FlexEventType> = z.input<(typeof EVENT_PAYLOAD_SCHEMAS)[T]>;

/** A typed event: its type and payload, as a union discriminated on `type`. */
export type FlexEvent = { [T in FlexEventType]: { type: T; payload: EventPayload<T> } }[FlexEventType];

/** Event types appended to a run's stream (`run-<runId>`), in lifecycle order. */
export const RUN_EVENT_TYPES = [
  'start',
  'plan_requested',
  'plan_drafted',
  'plan_rejected',
  'plan_generated',
  'plan_updated',
  'node_start',
  'node_complete',
  'node_error',
  'validation_error',
  'policy_triggered',
  'hitl_request',
  'hitl_resolved',
  'hitl_withdrawn',
  'replan_deferred',
  'run_paused',
  'run_resumed',
  'custom_event',
  'complete',
  'run_failed',
  'run_cancelled',
  'log',
] as const satisfies readonly FlexEventType[];

/** Event types appended to a capability's stream (`capability-<capabilityId>`). */
export const CAPABILITY_EVENT_TYPES = [
  'capability_registered',
  'capability_status_changed',
  'capability_deregistered',
  'capability_owner_assigned',
] as const satisfies readonly FlexEventType[];

/** Run events that end a run: nothing follows them on its stream. */
export const TERMINAL_EVENT_TYPES = [
  'complete',
  'run_failed',
  'run_cancelled',
] as const satisfies readonly FlexEventType[];

/** Run events that stay between services and are not streamed to clients. */
export const INTERNAL_EVENT_TYPES = ['plan_drafted'] as const satisfies readonly FlexEventType[];

/** A run event type (see {@link RUN_EVENT_TYPES}). */
export type RunEventType = (typeof RUN_EVENT_TYPES)[number];

/** A capability event type (see {@link CAPABILITY_EVENT_TYPES}). */
export type CapabilityEventType = (typeof CAPABILITY_EVENT_TYPES)[number];

/** True when `type` names a known event type. */
export function isFlexEventType(type: unknown): type is FlexEventType {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(EVENT_PAYLOAD_SCHEMAS, type);
}

/** Why {@link parseEventPayload} refused a payload. */
export interface EventPayloadError {
  code: 'UNKNOWN_EVENT_TYPE' | 'INVALID_EVENT_PAYLOAD';
  message: string;
  issues: ValidationIssue[];
}

/**
 * Parses an event payload against its type's schema, once, where a message enters a service.
 * Never throws: an unknown type or a bad payload comes back as an error value with issues
 * whose paths are relative to the payload.
 */
export function parseEventPayload<T extends FlexEventType>(
  type: T,
  payload: unknown,
): Result<EventPayload<T>, EventPayloadError>;
export function parseEventPayload(
  type: string,
  payload: unknown,
): Result<FlexEvent['payload'], EventPayloadError>;
export function parseEventPayload(type: string, payload: unknown): Result<unknown, EventPayloadError> {
  if (!isFlexEventType(type)) {
    return err({ code: 'UNKNOWN_EVENT_TYPE', message: `unknown event type "${type}"`, issues: [] });
  }
  const parsed = (EVENT_PAYLOAD_SCHEMAS[type] as z.ZodType).safeParse(payload, { reportInput: true });
  if (parsed.success) return ok(parsed.data);
  const issues = zodIssuesToValidationIssues(parsed.error.issues);
  return err({
    code: 'INVALID_EVENT_PAYLOAD',
    message: `invalid ${type} payload: ${issues.map((i) => `${i.path || '(payload)'}: ${i.message}`).join('; ')}`,
    issues,
  });
}

/** An event as a decider returns it: its type and the payload its producer wrote. */
export type DecidedRunEvent<T extends FlexEventType> = { type: T; payload: EventPayloadInput<T> };

/**
 * Any event as a decider returns it: a union on `type` whose payload is checked against its type at
 * compile time, on every append.
 */
export type DecidedFlexEvent = { [T in FlexEventType]: DecidedRunEvent<T> }[FlexEventType];

/**
 * A run event as a decider returns it, its payload checked against its type at compile time (the
 * store takes any payload; this is where a producer finds out it wrote the wrong shape).
 */
export function runEvent<T extends FlexEventType>(
  type: T,
  payload: EventPayloadInput<T>,
): DecidedRunEvent<T> {
  return { type, payload };
}
