import { typedEvent, type StoredEvent } from '@flex/event-store';
import type { Increment, Labels } from './metrics';

/**
 * A duration that ends with this event and began with an earlier event of the same stream, which
 * the recorder looks up: a run's `start`, or the `hitl_request` of a resolved request.
 */
export type Timing =
  | { family: 'runDuration'; labels: Labels<'runDuration'>; streamId: string; endedAt: string }
  | {
      family: 'hitlWait';
      labels: Labels<'hitlWait'>;
      streamId: string;
      requestId: string;
      endedAt: string;
    };

export interface Measures {
  increments: Increment[];
  timings: Timing[];
}

const NONE: Measures = { increments: [], timings: [] };

/**
 * What one committed event counts for. Called once per event whose append succeeded (duplicates
 * excluded), in the process that appended it: so each run is counted once, whichever service ends
 * it. Label values come from closed sets or system codes, clipped by {@link boundedLabel}.
 */
export function measuresOf(stored: StoredEvent): Measures {
  const event = typedEvent(stored);
  if (!event) return NONE;
  const ended = (outcome: string): Timing => ({
    family: 'runDuration',
    labels: { outcome },
    streamId: event.streamId,
    endedAt: event.timestamp,
  });
  switch (event.type) {
    case 'start':
      return counts({ family: 'runsStarted', labels: {} });
    case 'complete':
      return { increments: [{ family: 'runsCompleted', labels: {} }], timings: [ended('completed')] };
    case 'run_failed': {
      const reason = boundedLabel(event.payload.code);
      return { increments: [{ family: 'runsFailed', labels: { reason } }], timings: [ended('failed')] };
    }
    case 'run_cancelled':
      return { increments: [{ family: 'runsCancelled', labels: {} }], timings: [ended('cancelled')] };
    case 'plan_requested':
      return counts({ family: 'planAttempts', labels: { reason: event.payload.reason } });
    case 'plan_rejected': {
      const source = event.payload.source ?? 'validator';
      const causes = new Set(event.payload.diagnostics.failures.map((d) => d.cause));
      return counts(
        ...[...causes].map((cause) => ({ family: 'planRejections' as const, labels: { source, cause } })),
      );
    }
    case 'policy_triggered':
      return counts({ family: 'policyTriggers', labels: { action: event.payload.actionDetails.type } });
    case 'hitl_resolved':
    case 'hitl_withdrawn': {
      const { requestId } = event.payload;
      const decision = event.type === 'hitl_resolved' ? event.payload.decision : 'withdrawn';
      const timing: Timing = {
        family: 'hitlWait',
        labels: { decision },
        streamId: event.streamId,
        requestId,
        endedAt: event.timestamp,
      };
      return { increments: [], timings: [timing] };
    }
    default:
      return NONE;
  }
}

function counts(...increments: Increment[]): Measures {
  return { increments, timings: [] };
}

const LABEL = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

/**
 * A label value as stored, when it looks like a code or an identifier (at most 64 characters, no
 * spaces); `other` for anything else, so free text never becomes a series.
 */
export function boundedLabel(value: string): string {
  return LABEL.test(value) ? value : 'other';
}
