import { HitlResolveRequestSchema, CancelRunRequestSchema } from '../api/api-requests';
import { findUnstorableText, toJsonPointer, toStorableText, unstorableTextReason } from './storable-text';

const EMOJI = '\u{1F600}';
const HIGH = EMOJI.slice(0, 1);
const LOW = EMOJI.slice(1);

describe('storable text (what Postgres jsonb accepts)', () => {
  it.each([
    ['plain text', 'hello', undefined],
    ['a whole emoji', `ok ${EMOJI}`, undefined],
    ['a NUL', 'a\u0000b', /U\+0000.*index 1/],
    ['a high surrogate cut off at the end', `cut ${HIGH}`, /unpaired UTF-16 surrogate.*index 4/],
    ['a low surrogate without its high half', `${LOW}x`, /unpaired UTF-16 surrogate.*index 0/],
    ['two high surrogates', `${HIGH}${EMOJI}`, /index 0/],
  ])('%s', (_name, text, expected) => {
    const reason = unstorableTextReason(text);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toMatch(expected);
  });

  it('finds the first unstorable string or key, with its path', () => {
    expect(findUnstorableText({ a: [1, 'ok', { b: `x${HIGH}` }] })).toEqual({
      path: ['a', 2, 'b'],
      message: expect.stringMatching(/surrogate/),
    });
    expect(findUnstorableText({ ['k\u0000']: 1 })).toEqual({
      path: ['k\u0000'],
      message: expect.stringMatching(/^the key contains U\+0000/),
    });
    expect(findUnstorableText({ a: [1, null, true, 'fine', { b: EMOJI }] })).toBeUndefined();
    expect(findUnstorableText('\u0000')).toEqual({ path: [], message: expect.any(String) });
  });

  it('replaces what cannot be stored, and names places with storable pointers', () => {
    expect(toStorableText(`a\u0000b${HIGH}c${EMOJI}`)).toBe(`a\uFFFDb\uFFFDc${EMOJI}`);
    expect(toJsonPointer(['copyVariants', 0, 'body'])).toBe('/copyVariants/0/body');
    expect(toJsonPointer(['a/b', 'c~d', `k${LOW}`])).toBe('/a~1b/c~0d/k\uFFFD');
    expect(toJsonPointer([])).toBe('/');
  });

  it('request bodies refuse it with the path (a 400, not a failed append)', () => {
    const resolve = HitlResolveRequestSchema.safeParse({
      runId: 'r',
      requestId: 'h',
      decision: 'approve',
      payload: { copy: [`x${HIGH}`] },
    });
    expect(resolve.error?.issues[0]).toMatchObject({
      path: ['payload', 'copy', 0],
      params: { code: 'unstorable_text' },
    });
    const note = HitlResolveRequestSchema.safeParse({
      runId: 'r',
      requestId: 'h',
      decision: 'reject',
      note: 'no\u0000',
    });
    expect(note.error?.issues[0].path).toEqual(['note']);
    expect(CancelRunRequestSchema.safeParse({ reason: `stop ${LOW}` }).error?.issues[0].path).toEqual([
      'reason',
    ]);
    expect(CancelRunRequestSchema.parse({ reason: `stop ${EMOJI}` })).toEqual({ reason: `stop ${EMOJI}` });
    expect(CancelRunRequestSchema.parse({})).toEqual({});
  });
});
