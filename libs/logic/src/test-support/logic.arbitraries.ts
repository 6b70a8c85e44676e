import fc from 'fast-check';
import { JSONLOGIC_OPERATORS } from '@flex/contracts';

// Random JSONLogic rules over every allowed operator and random JSON data, built to reach the
// corners where JavaScript's conversions decide the answer: texts that are numbers or not, -0,
// arrays and objects meeting primitives, objects owning `toString`, `valueOf`, `indexOf` or
// `length` (which JSON can hold, as non-callable values), `var` paths that miss.

/** Keys of the data, and the paths that read them. */
const KEYS = ['a', 'b', 'xs', 's', 'length', 'toString', 'valueOf', 'indexOf', '0', '1'] as const;
const PATHS: readonly unknown[] = [
  '',
  'a',
  'b',
  'xs',
  's',
  'a.b',
  'xs.0',
  'xs.length',
  's.length',
  'a.length',
  'a.toString',
  'zz',
  'current',
  'accumulator',
  'current.a',
  'accumulator.length',
  0,
  1,
  null,
];

/** Literals a rule can hold (JSON, so no undefined, NaN or Infinity). */
export const scalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer({ min: -3, max: 12 }),
  fc.constantFrom<unknown>(-0, 0.5, -1.5, 1e21, 2 ** 53 + 2, true, false, null),
  fc.constantFrom(
    '',
    '0',
    '1',
    '-1',
    ' 2 ',
    '1e3',
    'a',
    'ab',
    'abc',
    'b',
    'true',
    'null',
    ',',
    '[object Object]',
  ),
  fc.constantFrom('\u{1F600}', '0x10', 'Infinity', '-0', '1,2'),
);

/** Random JSON data, with the keys above at every level. */
export const jsonData: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Data shaped like what constraints read: an object at the top. */
export const objectData = fc.dictionary(fc.constantFrom(...KEYS), jsonData, { maxKeys: 6 });

const path = fc.constantFrom(...PATHS);
const paths = fc.array(path, { maxLength: 3 });
const OPERATORS = JSONLOGIC_OPERATORS.filter((op) => !['var', 'missing', 'missing_some'].includes(op));

/** A random rule of at most `depth` operator levels (maybe a bare literal or array). */
export function ruleArb(depth: number): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    { arbitrary: scalar, weight: 3 },
    { arbitrary: path.map((p) => ({ var: p })), weight: 4 },
    { arbitrary: fc.tuple(path, scalar).map((pd) => ({ var: pd })), weight: 1 },
    { arbitrary: paths.map((ks) => ({ missing: ks })), weight: 1 },
    {
      arbitrary: fc.tuple(fc.integer({ min: -1, max: 3 }), paths).map((a) => ({ missing_some: a })),
      weight: 1,
    },
    { arbitrary: fc.array(scalar, { maxLength: 3 }), weight: 1 },
  );
  if (depth <= 0) return leaf;
  const sub = ruleArb(depth - 1);
  const op = fc.constantFrom(...OPERATORS);
  return fc.oneof(
    { arbitrary: leaf, weight: 2 },
    {
      arbitrary: fc.tuple(op, fc.array(sub, { maxLength: 4 })).map(([o, args]) => ({ [o]: args })),
      weight: 5,
    },
    { arbitrary: fc.tuple(op, sub).map(([o, arg]) => ({ [o]: arg })), weight: 1 },
    { arbitrary: fc.array(sub, { maxLength: 3 }), weight: 1 },
    { arbitrary: fc.tuple(path, sub).map((pd) => ({ var: pd })), weight: 1 },
    { arbitrary: fc.tuple(sub, paths).map((a) => ({ missing_some: a })), weight: 1 },
  );
}

/** A rule the validator may accept at the top level: an operation, never a bare literal. */
export const topRuleArb = (depth: number): fc.Arbitrary<unknown> =>
  ruleArb(depth).map((r) => (typeof r === 'object' && r !== null && !Array.isArray(r) ? r : { '!!': [r] }));
