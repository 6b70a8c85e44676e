import type { StoredEvent } from '@flex/event-store';
import { Beginnings } from './metrics-store';

const stored = (streamId: string, version: number, type: string, payload: unknown = {}): StoredEvent => ({
  position: version,
  id: `${streamId}-${version}`,
  streamId,
  version,
  type,
  payload,
  metadata: { correlationId: 'c' },
  timestamp: `2026-01-01T00:00:0${version}.000Z`,
});

const run = (streamId: string) => ({
  family: 'runDuration' as const,
  labels: { outcome: 'completed' },
  streamId,
  endedAt: '2026-01-01T00:01:00.000Z',
});

describe('Beginnings', () => {
  it('tells when a run and a HITL request began, once each, from the events that began them', () => {
    const b = new Beginnings();
    b.note(stored('run-r', 1, 'start'));
    b.note(stored('run-r', 2, 'hitl_request', { requestId: 'h' }));
    b.note(stored('run-r', 3, 'node_complete'));
    const hitl = {
      family: 'hitlWait' as const,
      labels: { decision: 'approve' },
      streamId: 'run-r',
      requestId: 'h',
      endedAt: '',
    };
    expect(b.take(hitl)).toBe(Date.parse('2026-01-01T00:00:02.000Z'));
    expect(b.take(hitl)).toBeUndefined();
    expect(b.take(run('run-r'))).toBe(Date.parse('2026-01-01T00:00:01.000Z'));
    expect(b.take(run('run-r'))).toBeUndefined();
  });

  it('forgets the oldest beyond its bound, leaving those to the store', () => {
    const b = new Beginnings(2);
    for (const s of ['run-a', 'run-b', 'run-c']) b.note(stored(s, 1, 'start'));
    b.note(stored('capability-x', 1, 'capability_registered')); // not a run: not kept
    expect(b.take(run('run-a'))).toBeUndefined();
    expect(b.take(run('run-b'))).toBeDefined();
    expect(b.take(run('run-c'))).toBeDefined();
  });
});
