import { capabilityIdFromStreamId, runIdFromStreamId, type FlexEventType } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import type { LogData, Logger, LogLevel } from './log';

type LineLevel = Exclude<LogLevel, 'silent' | 'fatal' | 'trace'>;

/**
 * The `event` field of a log line: the spec's legacy names (spec 003 §6, "Telemetry & Metrics
 * Parity"), one per stored event type worth a line, and the level it is written at. `log` events
 * are themselves log lines an agent wrote and are not logged again.
 */
export const STORED_EVENT_LOG_NAMES = {
  start: { event: 'flex_run_started', level: 'info' },
  plan_requested: { event: 'flex_plan_requested', level: 'info' },
  plan_drafted: { event: 'flex_plan_drafted', level: 'debug' },
  plan_rejected: { event: 'flex_plan_rejected', level: 'warn' },
  plan_generated: { event: 'flex_plan_generated', level: 'info' },
  plan_updated: { event: 'flex_plan_updated', level: 'info' },
  node_start: { event: 'flex_node_start', level: 'info' },
  node_complete: { event: 'flex_node_complete', level: 'info' },
  node_error: { event: 'flex_node_error', level: 'warn' },
  validation_error: { event: 'flex_validation_failed', level: 'warn' },
  policy_triggered: { event: 'flex_policy_triggered', level: 'info' },
  hitl_request: { event: 'flex_hitl_request', level: 'info' },
  hitl_resolved: { event: 'flex_hitl_resolved', level: 'info' },
  hitl_withdrawn: { event: 'flex_hitl_withdrawn', level: 'info' },
  replan_deferred: { event: 'flex_replan_deferred', level: 'info' },
  run_paused: { event: 'flex_run_paused', level: 'info' },
  run_resumed: { event: 'flex_run_resumed', level: 'info' },
  custom_event: { event: 'flex_custom_event', level: 'info' },
  complete: { event: 'flex_run_complete', level: 'info' },
  run_failed: { event: 'flex_run_failed', level: 'error' },
  run_cancelled: { event: 'flex_run_cancelled', level: 'info' },
  log: null,
  capability_registered: { event: 'flex_capability_registered', level: 'info' },
  capability_status_changed: { event: 'flex_capability_status_changed', level: 'info' },
  capability_deregistered: { event: 'flex_capability_deregistered', level: 'info' },
  capability_owner_assigned: { event: 'flex_capability_owner_assigned', level: 'info' },
} as const satisfies Record<FlexEventType, { event: string; level: LineLevel } | null>;

/** Lines the executor writes around each agent call (spec 003 §6, `flex_capability_dispatch_*`). */
export const DISPATCH_LOG_NAMES = {
  start: 'flex_capability_dispatch_start',
  complete: 'flex_capability_dispatch_complete',
  error: 'flex_capability_dispatch_error',
} as const;

/** Every `event` name a Flex log line may carry (docs/OBSERVABILITY.md lists the same). */
export const LOG_EVENT_NAMES: readonly string[] = [
  ...Object.values(STORED_EVENT_LOG_NAMES).flatMap((entry) => (entry ? [entry.event] : [])),
  ...Object.values(DISPATCH_LOG_NAMES),
];

/**
 * Payload fields copied onto a line when they hold a number, a boolean or an identifier-like
 * string: what a Loki query facets on. Nothing else of a payload is logged (inputs, outputs, free
 * text and reasons stay out, so a secret or a user's data cannot reach the logs).
 */
const SCALAR_FIELDS = [
  'attempt',
  'reason',
  'kind',
  'capabilityId',
  'durationMs',
  'policyId',
  'requestId',
  'decision',
  'scope',
  'code',
  'version',
  'previousVersion',
  'willRetry',
  'retryInMs',
  'mode',
  'status',
  'satisfactionScore',
] as const;

const IDENTIFIER = /^[A-Za-z0-9_.:@/-]{1,200}$/;

/**
 * One line per event just appended (the store's afterCommit): the legacy name, the run (or
 * capability), node, plan version, correlation id, position, the facet-level fields of its payload,
 * and the trace ids of the event's own `traceparent`: a group commit writes events of several runs
 * at once, so the span active there need not be theirs.
 */
export function logStoredEvents(logger: Logger, events: readonly StoredEvent[]): void {
  for (const event of events) {
    const name = (STORED_EVENT_LOG_NAMES as Record<string, { event: string; level: LineLevel } | null>)[
      event.type
    ];
    if (!name) continue;
    logger[name.level](event.type, { event: name.event, ...storedEventFields(event) });
  }
}

export function storedEventFields(event: StoredEvent): LogData {
  const payload = (event.payload ?? {}) as Record<string, unknown>;
  const fields: LogData = {
    runId: runIdFromStreamId(event.streamId),
    capabilityId: capabilityIdFromStreamId(event.streamId),
    nodeId: identifier(payload.nodeId),
    planVersion: event.metadata.planVersion,
    correlationId: event.metadata.correlationId,
    eventId: event.id,
    position: event.position,
    traceparent: event.metadata.traceparent,
  };
  for (const key of SCALAR_FIELDS) {
    const value = payload[key];
    if (typeof value === 'number' || typeof value === 'boolean') fields[key] = value;
    else if (identifier(value) !== undefined) fields[key] = value;
  }
  Object.assign(fields, derivedFields(event.type, payload));
  for (const key of Object.keys(fields)) if (fields[key] === undefined) delete fields[key];
  return fields;
}

/** What a few events say in a nested shape, flattened: the action, the codes, the provenance. */
function derivedFields(type: string, payload: Record<string, unknown>): LogData {
  switch (type) {
    case 'policy_triggered':
      return { action: identifier((payload.actionDetails as { type?: unknown } | undefined)?.type) };
    case 'validation_error':
      return { errorCount: Array.isArray(payload.errors) ? payload.errors.length : undefined };
    case 'node_error':
      return { code: identifier((payload.error as { code?: unknown } | undefined)?.code) };
    case 'node_complete':
      return { facetProvenance: payload.facetProvenance };
    case 'plan_rejected':
      return { diagnosticCodes: diagnosticCodes(payload.diagnostics) };
    default:
      return {};
  }
}

function diagnosticCodes(bundle: unknown): string[] | undefined {
  const buckets = (bundle ?? {}) as Record<string, unknown>;
  const diagnostics = ['failures', 'warnings', 'infos'].flatMap((bucket) => {
    const list = buckets[bucket];
    return Array.isArray(list) ? list : [];
  });
  if (diagnostics.length === 0) return undefined;
  const codes = diagnostics.map((d) => identifier((d as { code?: unknown }).code)).filter(Boolean);
  return [...new Set(codes as string[])];
}

function identifier(value: unknown): string | undefined {
  return typeof value === 'string' && IDENTIFIER.test(value) ? value : undefined;
}
