import { spend, toConjunction, type Budget, type Conjunct, type Labelled } from './conjunct';
import { distinctValues } from '../logic/value-key';
import { allowedKinds } from './kinds';
import { numberCandidates } from './number-candidates';
import { failureOf } from './schema-check';
import { stringCandidates } from './string-candidates';
import { splitUnion } from './union-split';
import { valueDomain } from './value-conflicts';
import { arrayCandidates, objectCandidates } from './witness-compound';

// Schemas Flex admits are at most 32 levels deep; nothing legitimate needs more.
const MAX_DEPTH = 32;

/** Builds up to `want` candidates for nested parts (a property, an element), each already checked. */
export type Values = (parts: readonly Labelled[], want: number, depth: number, budget: Budget) => unknown[];

/**
 * Values likely to satisfy every part, simplest first: the common `enum` / `const` values, or per
 * kind the least value within the bounds (null, false, the integer nearest 0, the shortest string,
 * the shortest array, the object with only its required properties). Nothing here is trusted:
 * callers check every candidate with Ajv.
 */
export function candidateValues(
  parts: readonly Labelled[],
  want: number,
  depth: number,
  budget: Budget,
): unknown[] {
  const conjunction = toConjunction(parts);
  if (depth > MAX_DEPTH || conjunction.empty || !spend(budget)) return [];
  const { conjuncts } = conjunction;
  const alternatives = splitUnion(conjuncts);
  if (alternatives !== undefined) {
    return distinctValues(alternatives.flatMap((alt) => candidateValues(alt, want, depth + 1, budget)));
  }
  const domain = valueDomain(conjuncts, '');
  if (domain.findings.length > 0) return [];
  if (domain.candidates !== undefined) return [...domain.candidates];
  return distinctValues(kindCandidates(conjuncts, want, depth, budget));
}

function kindCandidates(
  conjuncts: readonly Conjunct[],
  want: number,
  depth: number,
  budget: Budget,
): unknown[] {
  const { kinds } = allowedKinds(conjuncts, '');
  const values: unknown[] = [];
  if (kinds.has('null')) values.push(null);
  if (kinds.has('boolean')) values.push(false, true);
  if (kinds.has('integer') || kinds.has('fraction')) {
    values.push(...numberCandidates(conjuncts, kinds.has('fraction'), want));
  }
  if (kinds.has('string')) values.push(...stringCandidates(conjuncts, want));
  if (kinds.has('array')) values.push(...arrayCandidates(conjuncts, depth, budget, checkedValues));
  if (kinds.has('object')) values.push(...objectCandidates(conjuncts, want, depth, budget, checkedValues));
  return values;
}

/** Candidates no part certainly rejects, at most `want` of them. */
export const checkedValues: Values = (parts, want, depth, budget) =>
  candidateValues(parts, want, depth + 1, budget)
    .filter((value) => parts.every((part) => failureOf(value, part.schema) === undefined))
    .slice(0, want);
