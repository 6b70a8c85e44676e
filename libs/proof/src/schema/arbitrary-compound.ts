import fc from 'fast-check';
import { positionParts } from './array-conflicts';
import { lowerBound, upperBound } from './bounds';
import type { Conjunct, Labelled } from './conjunct';
import { distinctValues } from '../logic/value-key';
import { isClosed, requiredNames } from './property-schemas';
import { rejectionOf } from './schema-check';
import { entryOf, schemaAt, schemaListAt, schemaMapAt } from './schema-read';
import { propertyParts } from './witness-compound';

/** What nested parts need, within the budget of one `arbitraryOf` call. */
export interface Builder {
  /** The arbitrary of nested parts; `undefined` when no value for them was found. */
  readonly arbitrary: (parts: readonly Labelled[], depth: number) => fc.Arbitrary<unknown> | undefined;
  /** Up to `want` candidate values no part certainly rejects. */
  readonly values: (parts: readonly Labelled[], want: number, depth: number) => unknown[];
}

// Lengths past the lower bound are drawn up to this many more; the upper bound itself now and then.
const EXTRA_ITEMS = 6;
const BOUNDARY_ITEMS = 60;
const EXTRA_PROPERTIES = 2;
// Longer minimum lengths are not drawn: the witness stands in.
const MOST_DRAWN_ITEMS = 200;

/**
 * Arrays of every length from `minItems` to a few more, and of exactly `maxItems` now and then;
 * distinct elements under `uniqueItems`; one element satisfying `contains` at a random place.
 * `undefined` for tuple-form `items` (the witness stands in).
 */
export function arrayArbitrary(
  conjuncts: readonly Conjunct[],
  depth: number,
  build: Builder,
): fc.Arbitrary<unknown[]> | undefined {
  if (conjuncts.some((c) => schemaListAt(c.schema, 'items') !== undefined)) return undefined;
  const least = Math.ceil(lowerBound(conjuncts, 'minItems')?.value ?? 0);
  const most = Math.floor(upperBound(conjuncts, 'maxItems')?.value ?? Infinity);
  if (least > most || least > MOST_DRAWN_ITEMS) return undefined;
  const contains = conjuncts.flatMap(({ schema, label }) => {
    const wanted = schemaAt(schema, 'contains');
    return wanted === undefined ? [] : [{ schema: wanted, label }];
  });
  const item = build.arbitrary(positionParts(conjuncts, 0), depth + 1);
  if (item === undefined) return least === 0 && contains.length === 0 ? fc.constant([]) : undefined;
  const unique = conjuncts.some((c) => c.schema.uniqueItems === true);
  // Not fc.uniqueArray: it loops forever when fewer distinct items exist than minLength asks for.
  // Repeats are dropped instead; an array left too short fails the check and the witness stands in.
  const list = (min: number, max: number): fc.Arbitrary<unknown[]> => {
    const drawn = fc.array(item, { minLength: min, maxLength: max });
    return unique ? drawn.map((values) => distinctValues(values)) : drawn;
  };
  if (contains.length > 0) {
    const special = build.arbitrary([...positionParts(conjuncts, 0), ...contains], depth + 1);
    if (special === undefined || most < 1) return undefined;
    const rest = list(Math.max(0, least - 1), Math.min(most - 1, Math.max(0, least - 1) + EXTRA_ITEMS));
    return fc.tuple(special, rest, fc.nat()).map(([one, others, at]) => {
      const copy = [...others];
      copy.splice(at % (others.length + 1), 0, one);
      return copy;
    });
  }
  const arbs = [{ weight: 6, arbitrary: list(least, Math.min(most, least + EXTRA_ITEMS)) }];
  if (Number.isFinite(most) && most > least + EXTRA_ITEMS && most <= BOUNDARY_ITEMS) {
    arbs.push({ weight: 1, arbitrary: list(most, most) });
  }
  return fc.oneof(...arbs);
}

/**
 * Objects with every required property and each declared optional one present or not, plus (when
 * no conjunct is closed) a few extra properties, their names from `propertyNames` when it lists them.
 */
export function objectArbitrary(
  conjuncts: readonly Conjunct[],
  depth: number,
  build: Builder,
): fc.Arbitrary<Record<string, unknown>> | undefined {
  const required = [...requiredNames(conjuncts).keys()];
  const model = new Map<string, fc.Arbitrary<unknown>>();
  for (const name of allowedNames(conjuncts, required)) {
    const arb = build.arbitrary(propertyParts(conjuncts, name), depth + 1);
    if (arb !== undefined) model.set(name, arb);
  }
  if (required.some((name) => !model.has(name))) return undefined;
  const own = fc.record(Object.fromEntries(model), { requiredKeys: required, noNullPrototype: true });
  const extra = conjuncts.some((c) => isClosed(c.schema))
    ? undefined
    : extraProperties(conjuncts, [...model.keys()], depth, build);
  return extra === undefined
    ? own
    : fc.tuple(extra, own).map(([more, declared]) => ({ ...more, ...declared }));
}

/** Declared and required names every closed conjunct declares and every `propertyNames` accepts. */
function allowedNames(conjuncts: readonly Conjunct[], required: readonly string[]): string[] {
  const declared = conjuncts.flatMap((c) => Object.keys(schemaMapAt(c.schema, 'properties') ?? {}));
  return [...new Set([...required, ...declared])].filter(
    (name) =>
      name !== '__proto__' &&
      conjuncts.every((c) => {
        const names = schemaAt(c.schema, 'propertyNames');
        if (names !== undefined && rejectionOf(name, names) !== undefined) return false;
        return !isClosed(c.schema) || entryOf(schemaMapAt(c.schema, 'properties'), name) !== undefined;
      }),
  );
}

function extraProperties(
  conjuncts: readonly Conjunct[],
  declared: readonly string[],
  depth: number,
  build: Builder,
): fc.Arbitrary<Record<string, unknown>> | undefined {
  const extraParts = conjuncts.flatMap(({ schema, label }) => {
    const extra = schemaAt(schema, 'additionalProperties');
    return extra === undefined ? [] : [{ schema: extra, label }];
  });
  const value = build.arbitrary(extraParts, depth + 1);
  if (value === undefined) return undefined;
  const rules = conjuncts.flatMap(({ schema, label }) => {
    const names = schemaAt(schema, 'propertyNames');
    return names === undefined ? [] : [{ schema: names, label }];
  });
  if (rules.length === 0) {
    const key = fc
      .string({ minLength: 1, maxLength: 6 })
      .filter((name) => !declared.includes(name) && name !== '__proto__');
    return fc.dictionary(key, value, { maxKeys: EXTRA_PROPERTIES, noNullPrototype: true });
  }
  const names = build
    .values([...rules, { schema: { type: 'string' }, label: 'names' }], 16, depth + 1)
    .filter(
      (name): name is string => typeof name === 'string' && !declared.includes(name) && name !== '__proto__',
    )
    .filter((name) => rules.every((rule) => rejectionOf(name, rule.schema) === undefined));
  return names.length === 0
    ? undefined
    : fc.dictionary(fc.constantFrom(...names), value, { maxKeys: names.length, noNullPrototype: true });
}
