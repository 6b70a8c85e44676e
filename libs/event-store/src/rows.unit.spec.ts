import { toIsoString, toPosition, toStoredEvent } from './rows';

describe('row normalization', () => {
  it('turns bigint columns into numbers, from pg strings, PGlite numbers or bigints', () => {
    expect(toPosition('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(toPosition(42)).toBe(42);
    expect(toPosition(7n)).toBe(7);
    expect(() => toPosition('9007199254740993')).toThrow(RangeError);
    expect(() => toPosition('abc')).toThrow(RangeError);
    expect(() => toPosition(-1)).toThrow(RangeError);
  });

  it('maps an events row to a StoredEvent the same way for both drivers', () => {
    const common = {
      id: 'e1',
      stream_id: 'run-1',
      type: 't',
      payload: [1],
      metadata: { correlationId: 'c' },
    };
    const fromPg = toStoredEvent({
      ...common,
      position: '12',
      version: 3,
      recorded_at: new Date('2026-01-02T03:04:05.678Z'),
    });
    const fromPglite = toStoredEvent({
      ...common,
      position: 12,
      version: 3,
      recorded_at: '2026-01-02T03:04:05.678+00:00',
    });
    expect(fromPg).toEqual({
      position: 12,
      id: 'e1',
      streamId: 'run-1',
      version: 3,
      type: 't',
      payload: [1],
      metadata: { correlationId: 'c' },
      timestamp: '2026-01-02T03:04:05.678Z',
    });
    expect(fromPglite).toEqual(fromPg);
  });

  it('writes timestamps as millisecond UTC ISO strings', () => {
    expect(toIsoString('2026-01-02T04:04:05.678123+01:00')).toBe('2026-01-02T03:04:05.678Z');
  });
});
