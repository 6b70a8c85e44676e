import fc from 'fast-check';
import { unstorableTextReason } from '@flex/contracts';
import { parseQuery } from './query';

/** Well-formed text (encodeURIComponent refuses lone surrogates), NUL included now and then. */
const text = (minLength = 0) =>
  fc.string({
    unit: fc.oneof(fc.constant('\u0000'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
    minLength,
  });
const storable = (...texts: string[]) => texts.every((t) => unstorableTextReason(t) === undefined);
const pairsArb = fc.uniqueArray(fc.tuple(text(1), text()), {
  selector: ([key]) => key,
  maxLength: 8,
});
const encode = (pairs: Array<[string, string]>) =>
  pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');

describe('parseQuery', () => {
  it('is total: any query string gives a query or a named problem', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (raw) => {
        const parsed = parseQuery(raw);
        if (!parsed.ok) expect(parsed.problem.message.length).toBeGreaterThan(0);
      }),
    );
  });

  it('reads back every key once with its value, and refuses text that cannot be stored', () => {
    fc.assert(
      fc.property(pairsArb, (pairs) => {
        const parsed = parseQuery(encode(pairs));
        if (pairs.every(([k, v]) => storable(k, v)))
          expect(parsed).toEqual({ ok: true, query: Object.fromEntries(pairs) });
        else expect(parsed).toMatchObject({ ok: false, problem: { code: 'invalid_query' } });
      }),
    );
  });

  it('refuses any key given twice with a 400 naming it', () => {
    fc.assert(
      fc.property(pairsArb, text(1), text(), (pairs, key, value) => {
        const parsed = parseQuery(encode([...pairs, [key, value], [key, value]]));
        expect(parsed.ok).toBe(false);
        if (storable(key, value, ...pairs.flat()))
          expect(parsed).toEqual({
            ok: false,
            problem: expect.objectContaining({ code: 'duplicate_query_parameter', details: { path: key } }),
          });
      }),
    );
  });

  it.each([
    ['status=a&status=b', 'duplicate_query_parameter', 'status'],
    ['status=%00', 'invalid_query', 'status'],
    ['status=%ED%A0%80', 'invalid_query', 'status'],
    ['x=%ZZ', 'invalid_query', 'x'],
  ])('%s → %s naming %s', (raw, code, path) => {
    expect(parseQuery(raw)).toEqual({
      ok: false,
      problem: expect.objectContaining({ code, details: { path } }),
    });
  });

  it('keeps keys literal: no nesting, and __proto__ stays a plain key', () => {
    const parsed = parseQuery('a[b]=1&__proto__=2');
    expect(parsed.ok && parsed.query['a[b]']).toBe('1');
    expect(parsed.ok && Object.getOwnPropertyDescriptor(parsed.query, '__proto__')?.value).toBe('2');
    expect(parsed.ok && Object.getPrototypeOf(parsed.query)).toBe(Object.prototype);
  });
});
