import { parseEventPayload } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import { decideDeadLetterFailure, evolveRunEnding, initialRunEnding } from './dead-letter';

/** Events as the store would hold them on `streamId` (ids `<streamId>-e<n>` unless given). */
function givenEvents(
  streamId: string,
  events: Array<{ type: string; payload: unknown; id?: string }>,
): StoredEvent[] {
  return events.map((e, i) => ({
    position: i + 1,
    id: e.id ?? `${streamId}-e${i + 1}`,
    streamId,
    version: i + 1,
    type: e.type,
    payload: e.payload,
    metadata: { correlationId: 'corr-1' },
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
  }));
}

const history = (...types: string[]) =>
  givenEvents(
    'run-r1',
    types.map((type) => ({ type, payload: {} })),
  );
const ending = (...types: string[]) => history(...types).reduce(evolveRunEnding, initialRunEnding());
const [nodeStart] = givenEvents('run-r1', [
  { type: 'node_start', payload: { nodeId: 'execution-1', attempt: 2 }, id: 'ev-9' },
]);
const dead = {
  consumer: 'executor',
  event: nodeStart,
  deliveryCount: 10,
  reason: 'failed on all 10 deliveries; last error: boom',
};

describe('decideDeadLetterFailure: given the run, when one of its messages dead-letters, then', () => {
  it('a running run fails with dead_lettered, the service, the event, the node and the error', () => {
    const events = decideDeadLetterFailure(ending('start', 'plan_requested', 'plan_generated'), dead);
    expect(events).toEqual([
      {
        type: 'run_failed',
        payload: {
          code: 'dead_lettered',
          reason:
            'executor could not handle node_start (event ev-9, node execution-1) after 10 deliveries: failed on all 10 deliveries; last error: boom',
          nodeId: 'execution-1',
          deadLetter: {
            consumer: 'executor',
            eventId: 'ev-9',
            eventType: 'node_start',
            deliveryCount: 10,
            error: dead.reason,
          },
        },
      },
    ]);
    expect(parseEventPayload('run_failed', events[0].payload).ok).toBe(true);
  });

  it.each(['complete', 'run_failed', 'run_cancelled'])(
    'a run that ended with %s: nothing (it fails once, and never after it ended)',
    (end) => {
      expect(decideDeadLetterFailure(ending('start', 'plan_requested', end), dead)).toEqual([]);
    },
  );

  it('no run (nothing stored): nothing', () => {
    expect(decideDeadLetterFailure(ending(), dead)).toEqual([]);
  });

  it('an event without a node, and an error too long or not storable: still a valid run_failed', () => {
    const [planned] = givenEvents('run-r1', [{ type: 'plan_generated', payload: { nodeId: 'not an id!' } }]);
    const events = decideDeadLetterFailure(ending('start'), {
      ...dead,
      event: planned,
      reason: `x\u0000${'y'.repeat(9_000)}\u{1F600}`,
    });
    const payload = events[0].payload;
    expect(payload).not.toHaveProperty('nodeId');
    expect(payload.deadLetter?.error).toHaveLength(4_000);
    expect(payload.deadLetter?.error.startsWith('x\uFFFDy')).toBe(true);
    expect(parseEventPayload('run_failed', payload).ok).toBe(true);
  });
});
