import { positionParts } from './array-conflicts';
import { lowerBound } from './bounds';
import type { Budget, Conjunct, Labelled } from './conjunct';
import { valueKey } from '../logic/value-key';
import { isClosed, namedSchemas, requiredNames } from './property-schemas';
import { rejectionOf } from './schema-check';
import { schemaAt, schemaListAt, schemaMapAt } from './schema-read';
import type { Values } from './witness-build';

// Arrays longer than this are not built: such a contract is left to runtime validation.
const MAX_BUILT_ITEMS = 1_000;
const SPARE_NAMES = 'abcdefghijklmnopqrstuvwxyz'.split('');

/**
 * The shortest array: `minItems` elements (one at least when a `contains` asks for it, the first
 * element then satisfying every `contains`), all distinct under `uniqueItems`. `[]` or nothing.
 */
export function arrayCandidates(
  conjuncts: readonly Conjunct[],
  depth: number,
  budget: Budget,
  values: Values,
): unknown[][] {
  const contains = conjuncts.flatMap(({ schema, label }) => {
    const wanted = schemaAt(schema, 'contains');
    return wanted === undefined ? [] : [{ schema: wanted, label }];
  });
  const count = Math.max(
    Math.ceil(lowerBound(conjuncts, 'minItems')?.value ?? 0),
    contains.length > 0 ? 1 : 0,
  );
  if (count > MAX_BUILT_ITEMS) return [];
  const unique = conjuncts.some((c) => c.schema.uniqueItems === true);
  const tuple = conjuncts.some((c) => schemaListAt(c.schema, 'items') !== undefined);
  const want = unique ? count : 1;
  // Without tuple `items` every element after the first has the same schemas: build them once.
  const shared = tuple || count < 2 ? [] : values(positionParts(conjuncts, 1), want, depth, budget);
  const items: unknown[] = [];
  const seen = new Set<string>();
  for (let index = 0; index < count; index += 1) {
    const options =
      index === 0
        ? values([...positionParts(conjuncts, 0), ...contains], want, depth, budget)
        : tuple
          ? values(positionParts(conjuncts, index), want, depth, budget)
          : shared;
    const pick = options.find((option) => !unique || !seen.has(valueKey(option)));
    if (pick === undefined) return [];
    items.push(pick);
    seen.add(valueKey(pick));
  }
  return [items];
}

/**
 * The smallest objects: every required property (closed under `dependencies`) with a value its
 * schemas accept, then optional ones until `minProperties` is met, declared ones first. Up to
 * `want` of them, told apart by taking each property's next candidate (for `uniqueItems`).
 */
export function objectCandidates(
  conjuncts: readonly Conjunct[],
  want: number,
  depth: number,
  budget: Budget,
  values: Values,
): Array<Record<string, unknown>> {
  const options: Array<[string, unknown[]]> = [];
  for (const name of requiredNames(conjuncts).keys()) {
    const found = values(propertyParts(conjuncts, name), want, depth, budget);
    if (found.length === 0) return [];
    options.push([name, found]);
  }
  const least = Math.ceil(lowerBound(conjuncts, 'minProperties')?.value ?? 0);
  for (const name of optionalNames(conjuncts, depth, budget, values)) {
    if (options.length >= least) break;
    if (options.some(([taken]) => taken === name)) continue;
    const found = values(propertyParts(conjuncts, name), want, depth, budget);
    if (found.length > 0) options.push([name, found]);
  }
  const count = Math.max(1, ...options.map(([, found]) => found.length));
  return Array.from({ length: Math.min(want, count) }, (_, i) =>
    Object.fromEntries(options.map(([name, found]) => [name, found[Math.min(i, found.length - 1)]])),
  );
}

/** The subschemas every conjunct applies to property `name`. */
export function propertyParts(conjuncts: readonly Conjunct[], name: string): Labelled[] {
  return conjuncts.flatMap(({ schema, label }) =>
    namedSchemas(schema, name).map((n) => ({ schema: n.schema, label })),
  );
}

/** Names an object may add: declared properties, then (when no conjunct is closed) spare names. */
function optionalNames(
  conjuncts: readonly Conjunct[],
  depth: number,
  budget: Budget,
  values: Values,
): string[] {
  const declared = conjuncts.flatMap((c) => Object.keys(schemaMapAt(c.schema, 'properties') ?? {}));
  const spare = conjuncts.some((c) => isClosed(c.schema)) ? [] : spareNames(conjuncts, depth, budget, values);
  return [...new Set([...declared, ...spare])].filter((name) =>
    conjuncts.every((c) => {
      const names = schemaAt(c.schema, 'propertyNames');
      return names === undefined || rejectionOf(name, names) === undefined;
    }),
  );
}

function spareNames(conjuncts: readonly Conjunct[], depth: number, budget: Budget, values: Values): string[] {
  const rules: Labelled[] = conjuncts.flatMap(({ schema, label }) => {
    const names = schemaAt(schema, 'propertyNames');
    return names === undefined ? [] : [{ schema: names, label }];
  });
  if (rules.length === 0) return SPARE_NAMES;
  return values(
    [...rules, { schema: { type: 'string' }, label: 'names' }],
    SPARE_NAMES.length,
    depth,
    budget,
  ).filter((name): name is string => typeof name === 'string');
}
