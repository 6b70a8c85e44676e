import fc from 'fast-check';
import type { HttpException } from '@nestjs/common';
import { parseLastEventId } from './last-event-id';

function refusal(header: string): { status: number; code: string } | undefined {
  try {
    parseLastEventId(header);
    return undefined;
  } catch (error) {
    const http = error as HttpException;
    return { status: http.getStatus(), code: (http.getResponse() as { error: { code: string } }).error.code };
  }
}

describe('parseLastEventId', () => {
  it.each([
    [undefined, 0],
    ['', 0],
    ['0', 0],
    ['42', 42],
    ['007', 7],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ])('%j is position %d', (header, position) => {
    expect(parseLastEventId(header)).toBe(position);
  });

  it.each([
    '1e3',
    '0x10',
    '0b1',
    '0o7',
    '-1',
    '+1',
    '5.5',
    '5.',
    ' 5',
    '5 ',
    'Infinity',
    'NaN',
    'abc',
    '9007199254740992',
  ])('%j is a 400 invalid_last_event_id', (header) => {
    expect(refusal(header)).toEqual({ status: 400, code: 'invalid_last_event_id' });
  });

  it('takes exactly the decimal positions up to MAX_SAFE_INTEGER, whatever else is sent', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.nat().map(String), fc.bigInt({ min: 0n, max: 2n ** 60n }).map(String)),
        (header) => {
          const decimal = /^[0-9]+$/.test(header) && BigInt(header) <= BigInt(Number.MAX_SAFE_INTEGER);
          if (header === '') return expect(parseLastEventId(header)).toBe(0);
          if (decimal) return expect(parseLastEventId(header)).toBe(Number(header));
          expect(refusal(header)).toEqual({ status: 400, code: 'invalid_last_event_id' });
        },
      ),
    );
  });
});
