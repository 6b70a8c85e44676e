import fc from 'fast-check';
import {
  boundsAt,
  codePointLength,
  effectiveOutputSchema,
  feedbackSchema,
  fitToSchema,
  truncateCodePoints,
} from './output-contract';

const isLoneSurrogateAt = (s: string, i: number) => {
  const c = s.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && !(s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff);
};

describe('truncateCodePoints', () => {
  it('cuts by code point, never inside a surrogate pair', () => {
    expect(truncateCodePoints('a😀b😀', 2)).toBe('a😀');
    expect(truncateCodePoints('😀😀', 1)).toBe('😀');
    expect(truncateCodePoints('abc', 5)).toBe('abc');
    expect(truncateCodePoints('abc', 0)).toBe('');
  });

  it('gives a prefix of at most max code points that ends on a whole character (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat(50), (text, max) => {
        const cut = truncateCodePoints(text, max);
        expect(text.startsWith(cut)).toBe(true);
        expect(codePointLength(cut)).toBe(Math.min(max, codePointLength(text)));
        if (cut.length > 0) expect(isLoneSurrogateAt(cut, cut.length - 1)).toBe(false);
      }),
    );
  });
});

describe('the output contract an agent reads', () => {
  const schema = {
    type: 'object',
    properties: {
      copyVariants: {
        allOf: [
          {
            type: 'array',
            maxItems: 5,
            items: { type: 'object', properties: { body: { type: 'string', maxLength: 3000 } } },
          },
          {
            type: 'array',
            minItems: 3,
            maxItems: 3,
            items: { properties: { body: { maxLength: 300 }, tone: { enum: ['warm', 'crisp'] } } },
          },
        ],
      },
    },
  };

  it('bounds at a place combine every schema applying there (allOf, items, properties)', () => {
    expect(boundsAt(schema, ['copyVariants'])).toMatchObject({ minItems: 3, maxItems: 3 });
    expect(boundsAt(schema, '/copyVariants/1/body')).toEqual({ maxLength: 300 });
    expect(boundsAt(schema, ['copyVariants', 0, 'tone'])).toEqual({ allowed: ['warm', 'crisp'] });
  });

  it('feedback becomes bounds: an item index stands for every item; constraint errors add none', () => {
    const feedback = {
      attempt: 1,
      errors: [
        {
          path: '/copyVariants/1/body',
          keyword: 'maxLength',
          message: 'must NOT have more than 40 characters',
        },
        { path: '/copyVariants', keyword: 'maxItems', message: 'must NOT have more than 2 items' },
        {
          path: '/constraints/no_guarantees',
          keyword: 'constraint',
          message: 'hard constraint no_guarantees does not hold',
        },
      ],
    };
    expect(feedbackSchema(feedback)).toEqual({
      properties: { copyVariants: { maxItems: 2, items: { properties: { body: { maxLength: 40 } } } } },
    });
    const effective = effectiveOutputSchema({ outputSchema: schema, feedback });
    expect(boundsAt(effective, ['copyVariants', 0, 'body'])).toEqual({ maxLength: 40 });
  });

  it('fitToSchema brings values within the bounds and leaves the rest alone', () => {
    const value = {
      copyVariants: [
        { body: 'b'.repeat(400), tone: 'loud', extra: 1 },
        { body: 'ok', tone: 'crisp' },
        {},
        {},
      ],
    };
    expect(fitToSchema(value, schema)).toEqual({
      copyVariants: [{ body: 'b'.repeat(300), tone: 'warm', extra: 1 }, { body: 'ok', tone: 'crisp' }, {}],
    });
    expect(fitToSchema({ n: 9 }, { properties: { n: { maximum: 5 } } })).toEqual({ n: 5 });
  });
});
