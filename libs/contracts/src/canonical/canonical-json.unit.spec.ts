import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { CanonicalJsonError, canonicalCopy, canonicalJson, contentHash } from './canonical-json';

const fromIeeeHex = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);

describe('canonicalJson (RFC 8785)', () => {
  // RFC 8785 Appendix B: IEEE-754 bit patterns and their required serialization.
  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('serializes the double %s as %s', (hex, expected) => {
    expect(canonicalJson(fromIeeeHex(hex))).toBe(expected);
  });

  it.each([['7fffffffffffffff'], ['7ff0000000000000'], ['fff0000000000000']])(
    'rejects the non-finite double %s',
    (hex) => {
      expect(() => canonicalJson(fromIeeeHex(hex))).toThrow(CanonicalJsonError);
    },
  );

  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    // Compared as text: JSON.parse would reorder the integer-like key "1" on the way back.
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('reproduces the RFC 8785 §3.2.2 example byte for byte', () => {
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it('sorts nested objects and keeps array order', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 2 }], a: { d: null, c: true } })).toBe(
      '{"a":{"c":true,"d":null},"b":[3,{"a":2,"z":1}]}',
    );
  });

  it.each<[string, unknown]>([
    ['NaN', { a: NaN }],
    ['Infinity', [Infinity]],
    ['undefined at the top', undefined],
    ['undefined in an array', [1, undefined]],
    ['a function', { f: () => 1 }],
    ['a bigint', { n: BigInt(1) }],
    ['a symbol', Symbol('s')],
    ['a Date', { at: new Date(0) }],
    ['a Map', new Map()],
    [
      'a class instance',
      new (class Point {
        x = 1;
      })(),
    ],
    ['a lone surrogate', '\ud800'],
    ['a lone surrogate in a key', { '\udc00': 1 }],
  ])('rejects %s with a clear error', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(/cannot canonicalize/);
  });

  it('refuses a string, as a value or a key, exactly when it holds a lone surrogate (property)', () => {
    // The definition, spelled out: a high surrogate not followed by a low one, or a low one alone.
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const refused = (value: unknown) => {
          try {
            canonicalJson(value);
            return false;
          } catch {
            return true;
          }
        };
        expect(refused(text)).toBe(lone.test(text));
        expect(refused({ [text]: [text.length] })).toBe(lone.test(text));
      }),
    );
  });

  it('names the path of the offending value', () => {
    expect(() => canonicalJson({ plan: { nodes: [{ at: new Date(0) }] } })).toThrow(
      expect.objectContaining({ path: 'plan.nodes[0].at', code: 'CANONICAL_JSON_UNSUPPORTED' }),
    );
  });

  it('rejects cycles but accepts shared (acyclic) references', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/circular/);
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('omits object properties whose value is undefined, as a JSON round trip does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
  });

  it('writes any JSON value, at any depth, as a plain walk that sorts keys would (property)', () => {
    // The reference: JSON.stringify for every leaf and key, keys sorted by code units, no shortcuts.
    const reference = (v: unknown): string => {
      if (Array.isArray(v)) return `[${v.map(reference).join(',')}]`;
      if (v === null || typeof v !== 'object') return JSON.stringify(v);
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      const members = keys.filter((k) => record[k] !== undefined);
      return `{${members.map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(',')}}`;
    };
    // Strings that need escaping or hold surrogate pairs; depths either side of the fast walk's.
    const tricky = fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '😀', 'é', '</');
    const text = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.array(fc.oneof(tricky, fc.string()), { maxLength: 4 }).map((parts) => parts.join('')),
    );
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, fc.oneof(tie('value'), fc.constant(undefined)), { maxKeys: 4 }),
      ),
    })).value;
    const nested = (value: unknown, depth: number, asArray: boolean): unknown => {
      let out = value;
      for (let i = 0; i < depth; i++) out = asArray ? [out] : { k: out, [`${i}`]: i };
      return out;
    };
    fc.assert(
      fc.property(json, fc.integer({ min: 0, max: 260 }), fc.boolean(), (value, depth, asArray) => {
        const deep = nested(value, depth, asArray);
        expect(canonicalJson(deep)).toBe(reference(deep));
      }),
    );
  });

  it('is a fixed point of JSON round trips and ignores key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('canonicalCopy', () => {
  /** What the event store did before: a JSON round trip, then the canonical text of what came back. */
  const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value) ?? 'null');

  it('takes plain values, and gives their canonical text and a sorted, unshared copy', () => {
    const value = { b: [1, 'x', null, true, { z: -0, y: 'é' }], a: { c: 1.5, skip: undefined } };
    const taken = canonicalCopy(value);
    expect(taken?.json).toBe('{"a":{"c":1.5},"b":[1,"x",null,true,{"y":"é","z":0}]}');
    expect(taken?.copy).toEqual(roundTrip(value));
    expect(Object.keys(taken?.copy as object)).toEqual(['a', 'b']);
    expect((taken?.copy as { a: unknown }).a).not.toBe(value.a);
  });

  it.each([
    ['a Date', { at: new Date(0) }],
    ['a toJSON', { toJSON: () => 1 }],
    ['a function member', { f: () => 1 }],
    ['undefined in an array', [undefined]],
    ['NaN', [Number.NaN]],
    ['a lone surrogate', ['\ud800']],
    ['a lone surrogate in a key', { '\udc00': 1 }],
    ['an index key', { 1: 'x' }],
    ['a __proto__ key', JSON.parse('{"__proto__": 1}')],
    ['a class instance', new (class Thing {})()],
  ])('leaves %s to the long way', (_name, value) => {
    expect(canonicalCopy(value)).toBeUndefined();
  });

  it('when it takes a value, gives exactly what a JSON round trip then canonicalJson give (property)', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom('"', '\\', '\u2028', '😀', '0', '1', '10', '__proto__', 'toJSON', ''),
    );
    const odd = fc.constantFrom<unknown>(
      undefined,
      Number.NaN,
      Infinity,
      -0,
      new Date(0),
      () => 1,
      Symbol('s'),
      { toJSON: () => 'j' },
      new Map(),
      Object.create(null),
    );
    const anyValue = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        odd,
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(text, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(anyValue, (value) => {
        const taken = canonicalCopy(value);
        if (taken === undefined) return;
        expect(taken.json).toBe(canonicalJson(value));
        expect(taken.json).toBe(canonicalJson(roundTrip(value)));
        expect(taken.copy).toEqual(roundTrip(value));
        expect(JSON.stringify(taken.copy)).toBe(taken.json);
      }),
    );
  });

  it('takes any JSON value whose keys do not start with a digit and are not __proto__ (property)', () => {
    const key = fc.string().filter((k) => !/^[0-9]/.test(k) && k !== '__proto__' && k.isWellFormed());
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string().filter((s) => s.isWellFormed()),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(key, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(canonicalCopy(value)?.json).toBe(canonicalJson(value));
      }),
    );
  });
});

describe('contentHash', () => {
  it('is the SHA-256 hex of the canonical UTF-8 text', () => {
    expect(contentHash({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    const value = { b: '€', a: [1.5, -0] };
    expect(contentHash(value)).toBe(
      createHash('sha256').update('{"a":[1.5,0],"b":"€"}', 'utf8').digest('hex'),
    );
  });

  it('does not depend on key insertion order', () => {
    expect(contentHash({ a: 1, b: { c: 2, d: 3 } })).toBe(contentHash({ b: { d: 3, c: 2 }, a: 1 }));
  });
});
