import fc from 'fast-check';
import { MAX_PATTERN_LENGTH, readPattern } from './ecma-pattern';
import { compileSafePattern, MAX_PATTERN_PROGRAM_SIZE } from './safe-regexp';

describe('readPattern: refused shapes', () => {
  it.each([
    ['(a+)+$', 'UNSAFE_PATTERN', /quantifier/],
    ['^(a*)*b', 'UNSAFE_PATTERN', /quantifier/],
    ['(a|a)*', 'UNSAFE_PATTERN', /alternation/],
    ['^(?:foo|bar)+$', 'UNSAFE_PATTERN', /alternation/],
    ['(x?){30}', 'UNSAFE_PATTERN', /quantifier/],
    ['((ab)*c)+', 'UNSAFE_PATTERN', /quantifier/],
    ['((a|b)c){2,}', 'UNSAFE_PATTERN', /alternation/],
    ['^([a-z0-9]+-)*[a-z0-9]+$', 'UNSAFE_PATTERN', /quantifier/],
    ['(a)\\1', 'UNSAFE_PATTERN', /backreference/],
    ['(?<x>a)\\k<x>', 'UNSAFE_PATTERN', /backreference/],
    ['a(?=b)', 'UNSAFE_PATTERN', /lookaround/],
    ['a(?!b)', 'UNSAFE_PATTERN', /lookaround/],
    ['(?<=a)b', 'UNSAFE_PATTERN', /lookaround/],
    ['(?<!a)b', 'UNSAFE_PATTERN', /lookaround/],
    ['(unclosed', 'INVALID_PATTERN', /valid ECMA-262/],
    ['\\q', 'INVALID_PATTERN', /valid ECMA-262/], // identity escape of a letter: invalid in u mode
  ])('%s → %s', (source, code, reason) => {
    const result = readPattern(source);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe(code);
    expect(result.message).toMatch(reason);
  });

  it(`refuses a pattern longer than ${MAX_PATTERN_LENGTH} characters`, () => {
    expect(readPattern('a'.repeat(MAX_PATTERN_LENGTH))).toMatchObject({ ok: true });
    expect(readPattern('a'.repeat(MAX_PATTERN_LENGTH + 1))).toMatchObject({
      ok: false,
      code: 'PATTERN_TOO_LONG',
    });
  });

  it('does not mistake a quantifier inside a character class for a nested quantifier', () => {
    expect(readPattern('^([+*|]x)+$').ok).toBe(true);
    expect(readPattern('^(\\(a\\))+$').ok).toBe(true);
  });
});

describe('readPattern: accepted shapes and their RE2 form', () => {
  it.each([
    ['^[a-z]+$', '^[a-z]+$'],
    ['^https?://', '^https?://'],
    ['^(\\d{3}-)?\\d{4}$', '^(\\d{3}-)?\\d{4}$'],
    ['^(?:ab)+$', '^(?:ab)+$'],
    ['a\\/b', 'a/b'],
    ['\\u00e9', '\\x{E9}'],
    ['\\u{1F600}', '\\x{1F600}'],
    ['\\uD83D\\uDE00', '\\x{1F600}'],
    ['(?<year>\\d{4})', '(?P<year>\\d{4})'],
    ['\\p{Script=Greek}', '\\p{Greek}'],
    ['[^]', '[\\x{0}-\\x{10FFFF}]'],
    ['[]', '[^\\x{0}-\\x{10FFFF}]'],
    ['[[:a]', '[\\[:a]'],
  ])('%s → %s', (source, re2) => {
    expect(readPattern(source)).toEqual({ ok: true, re2 });
  });
});

describe('compileSafePattern', () => {
  it.each([
    ['\\p{Letter}', 'UNSUPPORTED_PATTERN'], // long category names: valid ECMA-262, unknown to RE2
    ['a{1001}', 'UNSUPPORTED_PATTERN'], // RE2 caps a repeat count at 1000
    ['(?:[a-z]{1000}){1}'.repeat(5), 'PATTERN_TOO_COMPLEX'],
  ])('%s → %s', (source, code) => {
    const result = compileSafePattern(source);
    expect(result).toMatchObject({ ok: false, code });
  });

  it('caches by source, refusals included', () => {
    expect(compileSafePattern('^x+$')).toBe(compileSafePattern('^x+$'));
    expect(compileSafePattern('(a+)+')).toBe(compileSafePattern('(a+)+'));
  });

  it('keeps program size under the cap for accepted patterns', () => {
    const result = compileSafePattern('^[a-z]{1,100}@[a-z]{1,100}\\.[a-z]{2,10}$');
    expect(result.ok && result.regExp.programSize()).toBeLessThanOrEqual(MAX_PATTERN_PROGRAM_SIZE);
  });

  it('matches polynomial-backtracking inputs in linear time', () => {
    // Safe by shape, yet quadratic-to-quartic on a backtracking engine for this input.
    const result = compileSafePattern('^\\s*\\s*\\s*\\s*x$');
    if (!result.ok) throw new Error(result.message);
    const started = performance.now();
    expect(result.regExp.test(' '.repeat(200_000))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

// The RE2 form must accept exactly what the ECMA-262 pattern accepts (JSON Schema semantics).
describe('RE2 translation agrees with the native engine', () => {
  const atom = fc.constantFrom(
    'a',
    'b',
    '1',
    ' ',
    '.',
    '\\s',
    '\\S',
    '\\d',
    '\\D',
    '\\w',
    '\\W',
    '[ab]',
    '[^a]',
    '[\\s1]',
    '[^\\s]',
    '[\\S]',
    '\\u00a0',
    '\\n',
    '[\\s\\S]',
    '\\/',
    '\\.',
    '(?:ab)',
    '(a1)',
    '[a-]',
  );
  const quantified = fc
    .tuple(atom, fc.constantFrom('', '', '?', '*', '+', '{2}', '{1,3}', '*?'))
    .map(([a, q]) => a + q);
  const branch = fc.array(quantified, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''));
  const pattern = fc
    .tuple(fc.boolean(), fc.array(branch, { minLength: 1, maxLength: 3 }), fc.boolean())
    .map(([start, branches, end]) => `${start ? '^' : ''}(?:${branches.join('|')})${end ? '$' : ''}`);
  const input = fc
    .array(fc.constantFrom('a', 'b', '1', ' ', '\u00a0', '\n', '\r', '\u2028', '\t', '_', '.', '/', 'é'), {
      maxLength: 12,
    })
    .map((cs) => cs.join(''));

  it('on random patterns and inputs', () => {
    fc.assert(
      fc.property(pattern, input, (source, text) => {
        const safe = compileSafePattern(source);
        if (!safe.ok) throw new Error(`${source}: ${safe.message}`);
        expect(safe.regExp.test(text)).toBe(new RegExp(source, 'u').test(text));
      }),
      { numRuns: 1_000 },
    );
  });
});
