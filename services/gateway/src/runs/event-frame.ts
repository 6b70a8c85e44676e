import {
  isFlexEventType,
  runIdFromStreamId,
  type EventPayload,
  type FlexEventFrame,
  type FlexEventType,
} from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import {
  describePlanGenerated,
  describePlanRejected,
  describePlanRequested,
  describePlanUpdated,
  describeRunFailed,
} from './planning-lines';

/** DESIGN §7: the FlexEvent JSON of one stored run event. */
export function toFrame(event: StoredEvent): FlexEventFrame {
  const payload = event.payload as Record<string, unknown> | undefined;
  const nodeId = typeof payload?.nodeId === 'string' ? payload.nodeId : undefined;
  const planVersion =
    event.metadata.planVersion ??
    (typeof payload?.planVersion === 'number' ? payload.planVersion : undefined);
  return {
    type: event.type as FlexEventFrame['type'],
    id: event.id,
    timestamp: event.timestamp,
    runId: runIdFromStreamId(event.streamId) ?? event.streamId,
    ...(nodeId ? { nodeId } : {}),
    ...(planVersion ? { planVersion } : {}),
    correlationId: event.metadata.correlationId,
    payload,
    message: describe(event.type, payload),
  } as FlexEventFrame;
}

/** An event as its line reads it: each payload field may be missing, and a line never throws for it. */
type LineEvent<T extends FlexEventType = FlexEventType> = {
  [K in T]: { type: K; payload: Partial<EventPayload<K>> };
}[T];

/**
 * A stored payload as its type's line reads it. Stored run events were written against their
 * type's schema (runEvent); the line reads every field as optional, so an older or partial
 * payload still gets its line.
 */
function lineEvent<T extends FlexEventType>(type: T, payload: unknown): LineEvent<T> {
  return { type, payload: (payload ?? {}) as Partial<EventPayload<T>> };
}

/** One human line per event, for logs and the CLI's live progress. */
export function describe(type: string, payload: unknown): string {
  return isFlexEventType(type) ? line(lineEvent(type, payload)) : type;
}

function line(event: LineEvent): string {
  switch (event.type) {
    case 'start':
      return `run ${event.payload.runId} started`;
    case 'plan_requested':
      return describePlanRequested(event.payload);
    case 'plan_rejected':
      return describePlanRejected(event.payload);
    case 'plan_generated':
      return describePlanGenerated(event.payload);
    case 'plan_updated':
      return describePlanUpdated(event.payload);
    case 'node_start': {
      const p = event.payload;
      return `${p.nodeId} started${p.capabilityId ? ` on ${p.capabilityId}` : ''} (attempt ${p.attempt})`;
    }
    case 'node_complete':
      return `${event.payload.nodeId} complete in ${event.payload.durationMs} ms`;
    case 'node_error': {
      const p = event.payload;
      return `${p.nodeId} failed: ${p.error?.message ?? ''}${p.willRetry ? ` (retrying in ${p.retryInMs} ms)` : ''}`;
    }
    case 'validation_error':
      return `validation failed (${event.payload.scope}): ${event.payload.errors?.[0]?.message ?? ''}`;
    case 'policy_triggered':
      return `policy ${event.payload.policyId} → ${event.payload.actionDetails?.type}`;
    case 'hitl_request':
      return `waiting for a human: ${event.payload.rationale ?? ''}`;
    case 'hitl_resolved':
      return `human ${event.payload.decision}d ${event.payload.requestId}`;
    case 'hitl_withdrawn':
      return `human request ${event.payload.requestId} withdrawn: ${event.payload.reason}`;
    case 'replan_deferred':
      return `replan waits for ${(event.payload.waitingFor ?? []).join(', ')}`;
    case 'complete':
      return 'run complete';
    case 'run_failed':
      return describeRunFailed(event.payload);
    case 'run_cancelled': {
      const p = event.payload;
      return `run cancelled by ${p.cancelledBy}${p.reason ? `: ${p.reason}` : ''}`;
    }
    case 'log': {
      const p = event.payload;
      const where = [p.source, p.nodeId].filter(Boolean).join(' ');
      return `${where ? `${where}: ` : ''}${p.message ?? ''}`;
    }
    // No line of their own: the event's type says it all.
    case 'plan_drafted':
    case 'run_paused':
    case 'run_resumed':
    case 'custom_event':
    case 'capability_registered':
    case 'capability_status_changed':
    case 'capability_deregistered':
    case 'capability_owner_assigned':
      return event.type;
  }
}

export function sseFrame(event: StoredEvent): string {
  return `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(toFrame(event))}\n\n`;
}

/**
 * A log line of the run (docs/OBSERVABILITY.md § Logs) as a live `log` frame: the JSON line as the
 * service wrote it, without an `id:` line, so a client's Last-Event-ID stays the last event's.
 */
export function logFrame(line: object): string {
  return `event: log\ndata: ${JSON.stringify(line)}\n\n`;
}
