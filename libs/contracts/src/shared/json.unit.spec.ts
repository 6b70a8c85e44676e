import { z } from 'zod';
import { JsonObjectSchema, JsonValueSchema, jsonProblem } from './json';

const Holder = z.strictObject({
  bag: JsonObjectSchema,
  maybe: JsonObjectSchema.optional(),
  defaulted: JsonObjectSchema.default({}),
});
const issues = (value: unknown) =>
  Holder.safeParse(value).error?.issues.map((i) => [
    i.path.join('.'),
    (i as { params?: { code?: string } }).params?.code,
  ]);

describe('JsonObjectSchema', () => {
  it('accepts JSON objects, keeps optional and defaulted bags working', () => {
    expect(Holder.parse({ bag: { a: [1, 'x', null, { b: true }] } })).toEqual({
      bag: { a: [1, 'x', null, { b: true }] },
      defaulted: {},
    });
  });

  it.each<[string, unknown, Array<[string, string]>]>([
    ['a missing bag', {}, [['bag', 'required']]],
    ['an array', { bag: [] }, [['bag', 'invalid_type']]],
    ['null', { bag: null }, [['bag', 'invalid_type']]],
    ['a Date inside', { bag: { at: new Date(0) } }, [['bag.at', 'not_json']]],
    [
      'a __proto__ key from JSON.parse',
      JSON.parse('{"bag":{"__proto__":{"x":1}}}'),
      [['bag.__proto__', 'not_json']],
    ],
    ['Infinity', { bag: {}, maybe: { n: Infinity } }, [['maybe.n', 'not_json']]],
  ])('refuses %s', (_name, value, expected) => {
    expect(issues(value)).toEqual(expected);
  });
});

describe('JsonValueSchema and jsonProblem', () => {
  it('accept any JSON value and refuse what JSON cannot carry', () => {
    for (const value of [null, 0, 'x', false, [], {}, [{ a: [] }]])
      expect(JsonValueSchema.safeParse(value).success).toBe(true);
    for (const value of [undefined, () => 1, BigInt(2), new Map(), [undefined]])
      expect(JsonValueSchema.safeParse(value).success).toBe(false);
  });

  it('stops at the depth cap and names cycles', () => {
    expect(jsonProblem({ a: { b: { c: {} } } }, 2)).toEqual({
      path: ['a', 'b'],
      code: 'too_deep',
      message: 'nesting deeper than 2 levels',
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.me = cyclic;
    expect(jsonProblem(cyclic)).toEqual(
      expect.objectContaining({ path: ['me'], message: 'circular reference' }),
    );
  });
});
