import fc from 'fast-check';
import { isSchema, scalarLiteral } from './schema.arbitraries';

// Random JSONLogic rules over every allowed operator, with `var` paths that reach into the shape
// of the data (and some that miss), quantifier bodies reading the items.

/** The paths a rule can read in data shaped by a schema, and the arrays it can quantify over. */
export interface Shape {
  readonly paths: readonly string[];
  readonly arrays: readonly { readonly path: string; readonly item: Shape }[];
}

/** Paths into values of `schema` (prefixed), `''` included when `prefix` is the item itself. */
export function shapeOf(schema: unknown, prefix = '', depth = 0): Shape {
  const paths: string[] = [prefix];
  const arrays: { path: string; item: Shape }[] = [];
  const join = (k: string) => (prefix === '' ? k : `${prefix}.${k}`);
  const visit = (s: unknown) => {
    if (!isSchema(s) || depth > 4) return;
    if (Array.isArray(s.allOf)) s.allOf.forEach(visit);
    // `length` of anything: an array's or a string's is read, of other values it is usually absent.
    paths.push(join('length'));
    if (s.type === 'array') {
      paths.push(join('0'));
      arrays.push({ path: prefix, item: shapeOf(s.items, '', depth + 1) });
    }
    for (const [k, sub] of Object.entries(isSchema(s.properties) ? s.properties : {})) {
      const inner = shapeOf(sub, join(k), depth + 1);
      paths.push(...inner.paths);
      arrays.push(...inner.arrays);
    }
  };
  visit(schema);
  return { paths: [...new Set(paths)], arrays };
}

const reduceShape = (item: Shape): Shape => ({
  paths: ['current', 'accumulator', ...item.paths.map((p) => (p === '' ? 'current' : `current.${p}`))],
  arrays: [],
});

const BINARY = [
  '==',
  '===',
  '!=',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  '+',
  '-',
  '*',
  '/',
  '%',
  'cat',
  'substr',
  'merge',
  'min',
  'max',
];
const UNARY = ['!', '!!', '-', '*', 'max', 'merge', 'cat', 'substr'];
const VARIADIC = ['<', '<=', 'and', 'or', 'if', '?:', '+', 'cat', 'substr', 'min', 'merge', '*'];
const QUANTIFIERS = ['all', 'some', 'none', 'map', 'filter'];
const CHECKS = ['==', '===', '!=', '<', '<=', '>', '>=', 'in'];

function leafArb(shape: Shape): fc.Arbitrary<unknown> {
  const path = fc.constantFrom(...shape.paths, 'zz');
  const keys = fc.subarray([...shape.paths, 'zz'], { minLength: 1, maxLength: 2 });
  return fc.oneof(
    { arbitrary: path.map((p) => ({ var: p })), weight: 4 },
    { arbitrary: fc.tuple(path, scalarLiteral).map(([p, d]) => ({ var: [p, d] })), weight: 1 },
    { arbitrary: scalarLiteral, weight: 3 },
    { arbitrary: fc.array(scalarLiteral, { maxLength: 3 }), weight: 1 },
    { arbitrary: keys.map((ks) => ({ missing: ks })), weight: 1 },
    {
      arbitrary: fc.tuple(fc.integer({ min: 0, max: 2 }), keys).map((xs) => ({ missing_some: xs })),
      weight: 1,
    },
  );
}

const apply = (ops: readonly string[], ...args: fc.Arbitrary<unknown>[]) =>
  fc.tuple(fc.constantFrom(...ops), ...args).map(([op, ...rest]) => ({ [op]: rest }));

/** A random rule (maybe a bare literal) of nesting at most `depth` over data of `shape`. */
export function ruleArb(shape: Shape, depth: number): fc.Arbitrary<unknown> {
  const leaf = leafArb(shape);
  if (depth <= 0) return leaf;
  const sub = ruleArb(shape, depth - 1);
  const read = fc.constantFrom(...shape.paths).map((p) => ({ var: p }));
  const check = apply(CHECKS, read, scalarLiteral);
  const nodes: fc.Arbitrary<unknown>[] = [
    check,
    check,
    apply(BINARY, sub, sub),
    fc.tuple(fc.constantFrom(...UNARY), sub).map(([op, a]) => ({ [op]: a })),
    fc.tuple(fc.constantFrom(...VARIADIC), fc.array(sub, { maxLength: 4 })).map(([op, xs]) => ({ [op]: xs })),
    apply(QUANTIFIERS, sub, sub),
  ];
  for (const a of shape.arrays) {
    const source = fc.constant({ var: a.path });
    nodes.push(apply(QUANTIFIERS, source, ruleArb(a.item, depth - 1)));
    nodes.push(apply(['reduce'], source, ruleArb(reduceShape(a.item), depth - 1), scalarLiteral));
  }
  return fc.oneof({ arbitrary: leaf, weight: 2 }, ...nodes.map((arbitrary) => ({ arbitrary, weight: 2 })));
}

const isOperation = (r: unknown) => typeof r === 'object' && r !== null && !Array.isArray(r);

/** A rule the validator accepts at the top level: an operation, never a bare literal. */
export function topRuleArb(shape: Shape, depth: number): fc.Arbitrary<unknown> {
  return ruleArb(shape, depth).map((r) => (isOperation(r) ? r : { '!!': [r] }));
}
