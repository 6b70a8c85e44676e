import fc from 'fast-check';
import { formatTraceparent, parseTraceparent } from './traceparent';

const VALID = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: length, maxLength: length });
const nonZero = (length: number) => hex(length).filter((s) => /[^0]/.test(s));
const wellFormed = fc
  .tuple(nonZero(32), nonZero(16), hex(2))
  .map(([traceId, spanId, flags]) => `00-${traceId}-${spanId}-${flags}`);

/** What the W3C recommendation calls a valid version-00 header, said independently of the parser's regex. */
function isWellFormed(s: string): boolean {
  const parts = s.split('-');
  const lowerHex = (p: string, n: number) =>
    p.length === n && [...p].every((c) => '0123456789abcdef'.includes(c));
  return (
    parts.length === 4 &&
    parts[0] === '00' &&
    lowerHex(parts[1], 32) &&
    lowerHex(parts[2], 16) &&
    lowerHex(parts[3], 2) &&
    !/^0+$/.test(parts[1]) &&
    !/^0+$/.test(parts[2])
  );
}

describe('traceparent', () => {
  it('reads a version-00 header', () => {
    expect(parseTraceparent(VALID)).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      flags: 1,
    });
  });

  it.each([
    ['another version', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['version ff', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['upper case', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
    ['an all-zero trace id', '00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['an all-zero span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['a short trace id', '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01'],
    ['a long span id', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b77-01'],
    ['one flag digit', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1'],
    ['a trailing field', `${VALID}-extra`],
    ['surrounding space', ` ${VALID} `],
    ['a trailing newline', `${VALID}\n`],
    ['non-hex digits', '00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01'],
    ['the empty string', ''],
    ['the test suite’s old placeholder', '00-abc-def-01'],
  ])('ignores %s', (_why, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('ignores what is not a string', () => {
    for (const value of [undefined, null, 42, {}, [VALID]]) expect(parseTraceparent(value)).toBeUndefined();
  });

  it('accepts exactly the well-formed headers among arbitrary strings', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0-af') }), wellFormed), (s) => {
        expect(parseTraceparent(s) !== undefined).toBe(isWellFormed(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips every well-formed header', () => {
    fc.assert(
      fc.property(wellFormed, (s) => {
        const parsed = parseTraceparent(s);
        expect(parsed).toBeDefined();
        expect(formatTraceparent(parsed!)).toBe(s);
      }),
    );
  });
});
