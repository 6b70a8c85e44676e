import fc from 'fast-check';

// Hostile rules that pass the static checks (allowlist, size, depth, nested iterations, estimated
// cost) and make the evaluation costly at run time, through the data's sizes: nested iterations
// over data arrays, folds that double what they hold, texts read or converted again and again.

const ITERATIONS = ['map', 'filter', 'all', 'some', 'none'] as const;
const acc = { var: 'accumulator' };

/** A literal array of `n` digits. */
const digits = (n: number) => Array.from({ length: n }, (_, i) => i % 10);

/** What an iteration runs over: the data's array, the item itself, a literal array, copies of the item. */
const source = fc.oneof(
  fc.constant<unknown>({ var: 'xs' }),
  fc.constant<unknown>({ var: '' }),
  fc.integer({ min: 1, max: 40 }).map(digits),
  fc.integer({ min: 2, max: 8 }).map((k) => ({ merge: Array.from({ length: k }, () => ({ var: '' })) })),
);

/** A body that costs something for each item: a literal array, a text, a comparison. */
const body = fc.oneof(
  fc.integer({ min: 1, max: 40 }).map(digits),
  fc.constant<unknown>({ cat: [{ var: '' }, { var: '' }] }),
  fc.constant<unknown>({ '==': [{ var: '' }, 'x'] }),
  fc.constant<unknown>({ in: [1, { var: '' }] }),
  fc.constant<unknown>({ merge: [{ var: '' }, { var: '' }] }),
);

/** Up to three iterations nested in one another's body (the static cap). */
const nested: fc.Arbitrary<unknown> = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...ITERATIONS), source), { minLength: 1, maxLength: 3 }), body)
  .map(([levels, inner]) => levels.reduceRight<unknown>((b, [op, src]) => ({ [op]: [src, b] }), inner));

/** A fold that doubles what it holds at every item. */
const doubling = fc
  .tuple(
    fc.constantFrom<unknown>(
      { merge: [acc, acc] },
      [acc, acc],
      { cat: [acc, acc] },
      { merge: [acc, acc, acc] },
      { cat: [acc, acc, acc] },
    ),
    fc.constantFrom<unknown>([1], 'x', [[1]], 'abcdefgh'),
  )
  .map(([step, initial]) => ({ reduce: [{ var: 'xs' }, step, initial] }));

/** What reads a value whole: converts it to text, searches it, compares it. */
const consume = (value: unknown) =>
  fc.constantFrom<unknown>(
    { '==': [value, 'x'] },
    { cat: [value] },
    { in: ['q', value] },
    { '<': [value, 1] },
    { '+': [value] },
    { '!!': [value] },
    { substr: [value, 1] },
    { some: [value, { '==': [{ var: '' }, 'q'] }] },
  );

/** Texts read many times: the data's long text, searched, joined and compared. */
const texts = fc
  .integer({ min: 2, max: 60 })
  .chain((k) =>
    fc.constantFrom<unknown>(
      { cat: Array.from({ length: k }, () => ({ var: 's' })) },
      { and: Array.from({ length: k }, () => ({ in: [{ var: 's' }, { var: 's' }] })) },
      { or: Array.from({ length: k }, () => ({ '<': [{ var: 's' }, { var: 's' }] })) },
      { map: [Array.from({ length: k }, () => ({ var: 's' })), { '+': [{ var: '' }, 1] }] },
    ),
  );

/** A hostile rule within the static limits. */
export const hostileRule: fc.Arbitrary<unknown> = fc.oneof(
  nested,
  doubling.chain(consume),
  doubling,
  texts,
  nested.chain(consume),
);

/** The sizes of hostile data: items per level of `xs`, characters of `s`. */
export const hostileSizes = fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 200_000 }));

/**
 * Data as large as a message can make it cheaply: `xs` an array of `n` arrays of `n` arrays (one
 * row shared, as parsed JSON would repeat it), `s` a text of `length` characters.
 */
export function hostileDataOf([n, length]: readonly [number, number]): Record<string, unknown> {
  const row = digits(n);
  const grid = Array.from({ length: n }, () => row);
  return { xs: Array.from({ length: n }, () => grid), s: 'x'.repeat(length) };
}

export const hostileData = hostileSizes.map(hostileDataOf);
