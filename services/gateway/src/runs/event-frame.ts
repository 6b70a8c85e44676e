import { runIdFromStreamId, type FlexEventFrame } from '@flex/contracts';
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
  const planVersion = event.metadata.planVersion ?? (typeof payload?.planVersion === 'number' ? payload.planVersion : undefined);
  return {
    type: event.type as FlexEventFrame['type'],
    id: event.id,
    timestamp: event.timestamp,
    runId: runIdFromStreamId(event.streamId) ?? event.streamId,
    ...(nodeId ? { nodeId } : {}),
    ...(planVersion ? { planVersion } : {}),
    correlationId: event.metadata.correlationId,
    payload,
    message: describe(event.type, payload ?? {}),
  } as FlexEventFrame;
}

/** One human line per event, for logs and the CLI's live progress. */
export function describe(type: string, p: Record<string, any>): string {
  switch (type) {
    case 'start': return `run ${p.runId} started`;
    case 'plan_requested': return describePlanRequested(p);
    case 'plan_rejected': return describePlanRejected(p);
    case 'plan_generated': return describePlanGenerated(p);
    case 'plan_updated': return describePlanUpdated(p);
    case 'node_start': return `${p.nodeId} started${p.capabilityId ? ` on ${p.capabilityId}` : ''} (attempt ${p.attempt})`;
    case 'node_complete': return `${p.nodeId} complete in ${p.durationMs} ms`;
    case 'node_error': return `${p.nodeId} failed: ${p.error?.message ?? ''}${p.willRetry ? ` (retrying in ${p.retryInMs} ms)` : ''}`;
    case 'validation_error': return `validation failed (${p.scope}): ${p.errors?.[0]?.message ?? ''}`;
    case 'policy_triggered': return `policy ${p.policyId} → ${p.action?.type}`;
    case 'hitl_request': return `waiting for a human: ${p.rationale ?? ''}`;
    case 'hitl_resolved': return `human ${p.decision}d ${p.requestId}`;
    case 'replan_deferred': return `replan waits for ${(p.waitingFor ?? []).join(', ')}`;
    case 'complete': return 'run complete';
    case 'run_failed': return describeRunFailed(p);
    case 'run_cancelled': return `run cancelled by ${p.cancelledBy}${p.reason ? `: ${p.reason}` : ''}`;
    default: return type;
  }
}

export function sseFrame(event: StoredEvent): string {
  return `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(toFrame(event))}\n\n`;
}
