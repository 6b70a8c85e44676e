import fc from 'fast-check';
import type { Finding, JsonSchema } from '../verdict';
import { arrayArbitrary, objectArbitrary, type Builder } from './arbitrary-compound';
import { integerArbitrary, numberArbitrary, stringArbitrary } from './arbitrary-scalars';
import { labelSchemas, spend, toConjunction, type Budget, type Conjunct, type Labelled } from './conjunct';
import { allowedKinds } from './kinds';
import { failureOf } from './schema-check';
import { satisfiability } from './satisfiability';
import { splitUnion } from './union-split';
import { valueDomain } from './value-conflicts';
import { checkedValues } from './witness-build';

/**
 * Thrown by {@link arbitraryOf} when no verified value exists: `verdict` says whether the schemas
 * were refuted (no value can satisfy them all) or the proof did not find one. Not retryable.
 */
export class SchemaArbitraryError extends Error {
  override readonly name = 'SchemaArbitraryError';
  readonly code = 'NO_WITNESS';
  readonly retryable = false;

  constructor(
    readonly verdict: 'refuted' | 'unknown',
    readonly findings: readonly Finding[],
  ) {
    const why =
      verdict === 'refuted'
        ? 'no value satisfies every schema'
        : 'no value satisfying every schema was found';
    super(`${why}: ${findings.map((f) => `${f.pointer || '/'}: ${f.message}`).join('; ')}`);
  }
}

// Nesting past this depth yields the nested witness alone, which keeps values (and time) bounded.
const MAX_DEPTH = 10;
// Nested conjunctions one arbitrary may be built for (unions multiply them); past it, witnesses stand in.
const MAX_STEPS = 2_000;
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$id',
  '$schema',
  'definitions',
  '$defs',
]);

/**
 * A fast-check arbitrary of values that every schema accepts: varied lengths (bounds included),
 * optional properties present or not, extra properties where allowed, each branch of a union.
 * Every drawn value is checked with the compiled schemas, at each level; one that fails is replaced
 * by a witness (a verified value), so everything yielded is valid, with less variety for keywords
 * it does not aim at (`pattern` beyond simple ones, `not`, `if`, `multipleOf`, …).
 *
 * Throws {@link SchemaArbitraryError} when {@link satisfiability} is not `proven`: the conjunction
 * is empty, a schema cannot be compiled on its own (`$ref`), or no value was found. Test support:
 * it imports fast-check.
 */
export function arbitraryOf(schemas: readonly JsonSchema[]): fc.Arbitrary<unknown> {
  const result = satisfiability(schemas);
  if (result.verdict !== 'proven') throw new SchemaArbitraryError(result.verdict, result.findings);
  const { witness } = result;
  const parts = labelSchemas(schemas);
  const drawn = builder({ left: MAX_STEPS }).arbitrary(parts, 0) ?? fc.constant(witness);
  return drawn.map((value) => (acceptedByAll(parts, value) ? value : witness));
}

function builder(budget: Budget): Builder {
  const self: Builder = {
    values: (parts, want, depth) => checkedValues(parts, want, depth, budget),
    arbitrary: (parts, depth) => {
      const found = checkedValues(parts, 1, depth, budget);
      if (found.length === 0) return undefined;
      const fallback = found[0];
      const drawn = depth >= MAX_DEPTH || !spend(budget) ? undefined : drawRaw(parts, depth, self);
      if (drawn === undefined) return fc.constant(fallback);
      return drawn.map((value) => (acceptedByAll(parts, value) ? value : fallback));
    },
  };
  return self;
}

function acceptedByAll(parts: readonly Labelled[], value: unknown): boolean {
  return parts.every((part) => failureOf(value, part.schema) === undefined);
}

function drawRaw(
  parts: readonly Labelled[],
  depth: number,
  build: Builder,
): fc.Arbitrary<unknown> | undefined {
  const conjunction = toConjunction(parts);
  if (conjunction.empty) return undefined;
  const { conjuncts } = conjunction;
  const alternatives = splitUnion(conjuncts);
  if (alternatives !== undefined) return oneOf(alternatives.map((alt) => build.arbitrary(alt, depth + 1)));
  const domain = valueDomain(conjuncts, '');
  if (domain.candidates !== undefined) {
    return domain.candidates.length > 0 ? fc.constantFrom(...domain.candidates) : undefined;
  }
  if (conjuncts.every((c) => Object.keys(c.schema).every((k) => ANNOTATIONS.has(k)))) {
    // fc.jsonValue can draw -0, which JSON cannot carry (it comes back as 0): values are JSON's.
    return fc.jsonValue({ maxDepth: depth > 2 ? 0 : 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
  }
  return oneOf(kindArbitraries(conjuncts, depth, build));
}

function kindArbitraries(
  conjuncts: readonly Conjunct[],
  depth: number,
  build: Builder,
): Array<fc.Arbitrary<unknown> | undefined> {
  const { kinds } = allowedKinds(conjuncts, '');
  const number = kinds.has('fraction')
    ? numberArbitrary(conjuncts)
    : kinds.has('integer')
      ? integerArbitrary(conjuncts)
      : undefined;
  return [
    kinds.has('null') ? fc.constant(null) : undefined,
    kinds.has('boolean') ? fc.boolean() : undefined,
    number,
    kinds.has('string') ? stringArbitrary(conjuncts) : undefined,
    kinds.has('array') ? arrayArbitrary(conjuncts, depth, build) : undefined,
    kinds.has('object') ? objectArbitrary(conjuncts, depth, build) : undefined,
  ];
}

function oneOf(arbs: ReadonlyArray<fc.Arbitrary<unknown> | undefined>): fc.Arbitrary<unknown> | undefined {
  const present = arbs.filter((a): a is fc.Arbitrary<unknown> => a !== undefined);
  return present.length === 0 ? undefined : fc.oneof(...present);
}
