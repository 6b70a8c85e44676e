import { EVENT_PAYLOAD_SCHEMAS } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import fc from 'fast-check';
import { createLogger } from './log';
import { LOG_EVENT_NAMES, logStoredEvents, STORED_EVENT_LOG_NAMES } from './log-events';

const TRACEPARENT = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;

function stored(type: string, payload: unknown, position = 1): StoredEvent {
  return {
    position,
    id: `e${position}`,
    streamId: 'run-r1',
    version: position,
    type,
    payload,
    metadata: { correlationId: 'c1', planVersion: 1, traceparent: TRACEPARENT },
    timestamp: '2026-01-01T00:00:00.000Z',
  };
}

function logged(events: StoredEvent[]) {
  const raw: string[] = [];
  const logger = createLogger({
    service: 'executor',
    level: 'trace',
    destination: { write: (t) => raw.push(t) },
  });
  logStoredEvents(logger, events);
  return { raw, lines: raw.map((t) => JSON.parse(t) as Record<string, unknown>) };
}

describe('logStoredEvents: a line per appended event, under its legacy name', () => {
  it('names every event type (log excepted) once, and every name is distinct', () => {
    const types = Object.keys(EVENT_PAYLOAD_SCHEMAS);
    expect(Object.keys(STORED_EVENT_LOG_NAMES).sort()).toEqual(types.sort());
    expect(new Set(LOG_EVENT_NAMES).size).toBe(LOG_EVENT_NAMES.length);
    expect(LOG_EVENT_NAMES).toEqual(
      expect.arrayContaining([
        'flex_plan_requested',
        'flex_node_complete',
        'flex_policy_triggered',
        'flex_validation_failed',
        'flex_capability_dispatch_start',
        'flex_capability_dispatch_complete',
        'flex_capability_dispatch_error',
      ]),
    );
  });

  it('carries the run, node, plan version, correlation and trace ids, and facet-level fields', () => {
    const { lines } = logged([
      stored('plan_requested', { attempt: 1, reason: 'initial', policyKeys: [] }, 1),
      stored(
        'node_complete',
        { nodeId: 'n1', capabilityId: 'writer.en', attempt: 1, durationMs: 12, output: {} },
        2,
      ),
      stored('policy_triggered', { policyId: 'p1', actionDetails: { type: 'replan' }, nodeId: 'n1' }, 3),
      stored('validation_error', { scope: 'capability_output', nodeId: 'n1', errors: [{}, {}] }, 4),
      stored('log', { level: 'info', message: 'agent line' }, 5),
      stored('run_failed', { code: 'PLAN_REJECTED', reason: 'no plan' }, 6),
    ]);
    const common = {
      service: 'executor',
      runId: 'r1',
      planVersion: 1,
      correlationId: 'c1',
      trace_id: '1'.repeat(32),
      span_id: '2'.repeat(16),
    };
    expect(lines).toEqual([
      expect.objectContaining({
        ...common,
        level: 'info',
        event: 'flex_plan_requested',
        attempt: 1,
        reason: 'initial',
      }),
      expect.objectContaining({
        ...common,
        level: 'info',
        event: 'flex_node_complete',
        nodeId: 'n1',
        capabilityId: 'writer.en',
        durationMs: 12,
      }),
      expect.objectContaining({
        ...common,
        event: 'flex_policy_triggered',
        policyId: 'p1',
        action: 'replan',
      }),
      expect.objectContaining({ ...common, level: 'warn', event: 'flex_validation_failed', errorCount: 2 }),
      expect.objectContaining({ ...common, level: 'error', event: 'flex_run_failed', code: 'PLAN_REJECTED' }),
    ]);
  });

  it('property: nothing of a payload but identifier-like scalars reaches a line (no inputs, outputs, text)', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.constantFrom('node_complete', 'complete', 'node_error', 'run_failed'),
        (id, type) => {
          const secret = `canary ${id}`;
          const { raw } = logged([
            stored(type, {
              nodeId: 'n1',
              output: { text: secret },
              reason: secret,
              error: { code: 'X', message: secret, retryable: false },
              facetProvenance: [{ facet: 'copy', direction: 'output', pointer: '/text' }],
            }),
          ]);
          expect(raw.join('')).not.toContain(id);
        },
      ),
    );
  });
});
