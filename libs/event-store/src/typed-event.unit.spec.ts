import { payloadOf, typedEvent } from './typed-event';
import type { StoredEvent } from './types';

const stored = (type: string, payload: unknown): StoredEvent => ({
  position: 1,
  id: 'e1',
  streamId: 'run-r1',
  version: 1,
  type,
  payload,
  metadata: { correlationId: 'c' },
  timestamp: '2026-01-01T00:00:00.000Z',
});

describe('typed events at the store boundary', () => {
  it('a known type narrows its payload by the tag', () => {
    const event = typedEvent(stored('run_paused', { reason: 'why' }));
    expect(event?.type === 'run_paused' && event.payload.reason).toBe('why');
  });

  it('a type this version does not know is not narrowed', () => {
    expect(typedEvent(stored('from_the_future', {}))).toBeUndefined();
  });

  it('payloadOf checks the tag: asking a run_paused for a start payload is a bug, and throws', () => {
    expect(payloadOf(stored('run_paused', { reason: 'why' }), 'run_paused')).toEqual({ reason: 'why' });
    expect(() => payloadOf(stored('run_paused', {}), 'start')).toThrow(
      'expected a start event, got run_paused',
    );
  });
});
