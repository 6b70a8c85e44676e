import fc from 'fast-check';
import type { StoredEvent } from '@flex/event-store';
import { boundedLabel, measuresOf } from './metrics-events';

const stored = (type: string, payload: unknown): StoredEvent => ({
  position: 7,
  id: 'e-1',
  streamId: 'run-r1',
  version: 3,
  type,
  payload,
  metadata: { correlationId: 'c-1' },
  timestamp: '2026-11-25T08:00:00.000Z',
});

const ENDINGS = {
  complete: { family: 'runsCompleted', outcome: 'completed' },
  run_failed: { family: 'runsFailed', outcome: 'failed' },
  run_cancelled: { family: 'runsCancelled', outcome: 'cancelled' },
} as const;

describe('measuresOf: what a committed event counts for', () => {
  it('start counts a started run; nothing else that is not an ending, a plan or a policy counts', () => {
    expect(measuresOf(stored('start', {}))).toEqual({
      increments: [{ family: 'runsStarted', labels: {} }],
      timings: [],
    });
    for (const type of ['node_start', 'node_complete', 'log', 'capability_registered', 'not_a_type'])
      expect(measuresOf(stored(type, {}))).toEqual({ increments: [], timings: [] });
  });

  it('every terminal event counts its run once, in its outcome, and times it from the stream start', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...(Object.keys(ENDINGS) as Array<keyof typeof ENDINGS>)),
        fc.string(),
        (type, code) => {
          const { increments, timings } = measuresOf(stored(type, { code }));
          const ending = ENDINGS[type];
          expect(increments.map((i) => i.family)).toEqual([ending.family]);
          expect(timings).toEqual([
            {
              family: 'runDuration',
              labels: { outcome: ending.outcome },
              streamId: 'run-r1',
              endedAt: '2026-11-25T08:00:00.000Z',
            },
          ]);
        },
      ),
    );
  });

  it('a failure reason is the run_failed code when it reads as a code, `other` for any free text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (code) => {
        const [increment] = measuresOf(stored('run_failed', { code })).increments;
        const reason = (increment.labels as { reason: string }).reason;
        expect(reason === code || reason === 'other').toBe(true);
        expect(reason).toMatch(/^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/);
      }),
    );
    expect(boundedLabel('plan_rejected')).toBe('plan_rejected');
    expect(boundedLabel('PLANNER_NO_CAPABILITIES')).toBe('PLANNER_NO_CAPABILITIES');
    expect(boundedLabel('my secret is hunter2')).toBe('other');
    expect(boundedLabel('x'.repeat(65))).toBe('other');
  });

  it('a rejection counts once per distinct diagnostic cause among its failures, by source', () => {
    const failure = (cause: string) => ({ cause });
    const payload = (source: string | undefined) => ({
      ...(source ? { source } : {}),
      diagnostics: { failures: ['missing_producer', 'schema_incompatible', 'missing_producer'].map(failure) },
    });
    expect(measuresOf(stored('plan_rejected', payload(undefined))).increments).toEqual([
      { family: 'planRejections', labels: { source: 'validator', cause: 'missing_producer' } },
      { family: 'planRejections', labels: { source: 'validator', cause: 'schema_incompatible' } },
    ]);
    expect(measuresOf(stored('plan_rejected', payload('planner'))).increments[0].labels).toEqual({
      source: 'planner',
      cause: 'missing_producer',
    });
  });

  it('plan attempts by reason, policy triggers by action, HITL waits from their request', () => {
    expect(measuresOf(stored('plan_requested', { reason: 'replan' })).increments).toEqual([
      { family: 'planAttempts', labels: { reason: 'replan' } },
    ]);
    expect(measuresOf(stored('policy_triggered', { actionDetails: { type: 'hitl' } })).increments).toEqual([
      { family: 'policyTriggers', labels: { action: 'hitl' } },
    ]);
    expect(measuresOf(stored('hitl_resolved', { requestId: 'h-1', decision: 'approve' }))).toEqual({
      increments: [],
      timings: [
        {
          family: 'hitlWait',
          labels: { decision: 'approve' },
          streamId: 'run-r1',
          requestId: 'h-1',
          endedAt: '2026-11-25T08:00:00.000Z',
        },
      ],
    });
  });
});
