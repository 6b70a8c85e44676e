import fc from 'fast-check';
import { findUnstorableText, LIMITS } from '@flex/contracts';
import { depthExceededAt, parseJsonBody } from './json-body';

const nesting = (value: unknown): number =>
  value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value).map(nesting)) : 0;

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

describe('parseJsonBody', () => {
  it('is total: any bytes give a value or a named problem, never an exception', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.json().map(utf8)), (bytes) => {
        const parsed = parseJsonBody(bytes);
        if (!parsed.ok) expect(parsed.problem.message.length).toBeGreaterThan(0);
      }),
    );
  });

  it('takes exactly the storable JSON within the depth limit, as JSON.parse reads it', () => {
    const unit = fc.oneof(
      fc.constantFrom('\u0000', '\ud800', '\udc00'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, stringUnit: unit }), (value) => {
        const text = JSON.stringify(value);
        const parsed = parseJsonBody(utf8(text));
        const unstorable = findUnstorableText(value);
        // A `__proto__` key is named first, whatever else is wrong (a key is a string followed by `:`).
        if (text.includes('"__proto__":'))
          expect(parsed).toMatchObject({ ok: false, problem: { code: 'not_json' } });
        else if (unstorable)
          expect(parsed).toMatchObject({ ok: false, problem: { code: 'unstorable_text' } });
        else expect(parsed).toEqual({ ok: true, value: JSON.parse(text) });
      }),
    );
  });

  it('measures nesting on the bytes exactly as deep as the parsed value nests', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 12 }), (value, max) => {
        const exceeded = depthExceededAt(utf8(JSON.stringify(value)), max) !== undefined;
        expect(exceeded).toBe(nesting(value) > max);
      }),
    );
  });

  it('refuses 50,000 levels before parsing, at the byte that opens one level too many', () => {
    const deep = utf8(`${'['.repeat(50_000)}${']'.repeat(50_000)}`);
    expect(parseJsonBody(deep)).toEqual({
      ok: false,
      problem: expect.objectContaining({ code: 'too_deep', details: { offset: LIMITS.jsonMaxDepth } }),
    });
  });

  it.each([
    ['a NUL in a value', '{"a":"x\\u0000"}', 'unstorable_text', 'a'],
    ['a lone surrogate in a key', '{"k\\ud800":1}', 'unstorable_text', '["k\\ud800"]'],
    ['a __proto__ key', '{"b":{"__proto__":{}}}', 'not_json', 'b.__proto__'],
    ['a number JSON cannot hold', '{"n":[1e400]}', 'not_json', 'n[0]'],
  ])('names the path of %s', (_name, text, code, path) => {
    expect(parseJsonBody(utf8(text))).toEqual({
      ok: false,
      problem: {
        code,
        message: expect.stringMatching(new RegExp(`^${path.replace(/[[\].\\]/g, '\\$&')}: `)),
        details: { path, issues: [{ path, code, message: expect.any(String) }] },
      },
    });
  });

  it('refuses bytes that are not UTF-8 (an encoded surrogate, a stray continuation byte)', () => {
    for (const bytes of [[0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0x80, 0x22], [0xff]])
      expect(parseJsonBody(new Uint8Array(bytes))).toMatchObject({
        ok: false,
        problem: { code: 'invalid_utf8' },
      });
  });

  it('reads an empty body as no body', () => {
    expect(parseJsonBody(new Uint8Array())).toEqual({ ok: true, value: undefined });
  });
});
