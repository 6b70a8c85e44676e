import { randomUUID } from 'node:crypto';
import { AppendItem, checkExpectedVersion, validateAppend } from './append';
import { WrongExpectedVersionError } from './errors';

const event = () => ({ id: randomUUID(), type: 't', payload: {}, metadata: { correlationId: 'c' } });
const item = (patch: Partial<AppendItem> = {}): AppendItem => ({
  streamId: 's',
  events: [event()],
  options: { expectedVersion: 'any' },
  ...patch,
});

describe('checkExpectedVersion', () => {
  it.each([
    ['any', 0],
    ['any', 7],
    ['no_stream', 0],
    [3, 3],
  ] as const)('accepts expected %s at version %i', (expected, actual) => {
    expect(() => checkExpectedVersion('s', expected, actual)).not.toThrow();
  });

  it.each([
    ['no_stream', 1],
    [0, 1],
    [3, 2],
  ] as const)('refuses expected %s at version %i', (expected, actual) => {
    expect(() => checkExpectedVersion('s', expected, actual)).toThrow(WrongExpectedVersionError);
  });
});

describe('validateAppend', () => {
  it('accepts a well-formed append, empty ones included', () => {
    expect(() => validateAppend(item())).not.toThrow();
    expect(() =>
      validateAppend(item({ events: [], options: { expectedVersion: 0, idempotencyKey: 'k' } })),
    ).not.toThrow();
  });

  it.each<[string, AppendItem]>([
    ['an empty stream id', item({ streamId: '' })],
    ['a negative expected version', item({ options: { expectedVersion: -1 } })],
    ['a fractional expected version', item({ options: { expectedVersion: 1.5 } })],
    ['an unknown expectation', item({ options: { expectedVersion: 'latest' as never } })],
    ['an empty idempotency key', item({ options: { expectedVersion: 'any', idempotencyKey: '' } })],
    ['an id that is not a UUID', item({ events: [{ ...event(), id: 'evt-1' }] })],
    ['an empty type', item({ events: [{ ...event(), type: '' }] })],
    ['a timestamp that is not a date', item({ events: [{ ...event(), timestamp: 'soon' }] })],
    ['a five-digit year', item({ events: [{ ...event(), timestamp: '+010000-01-01T00:00:00Z' }] })],
    ['a year before 1', item({ events: [{ ...event(), timestamp: '0000-12-31T23:59:59Z' }] })],
  ])('refuses %s', (_, bad) => {
    expect(() => validateAppend(bad)).toThrow(expect.objectContaining({ code: 'INVALID_APPEND' }));
  });
});
