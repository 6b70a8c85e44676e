import type { Finding } from '../verdict';
import { owner, type Conjunct } from './conjunct';
import { numberAt } from './schema-read';

/** The tightest bound the conjuncts put on one measure, and who put it. */
export interface Bound {
  readonly value: number;
  readonly exclusive: boolean;
  readonly keyword: string;
  readonly label: string;
}

/** Keyword names of a lower or an upper bound; `exclusive` only for numbers. */
export interface BoundKeywords {
  readonly inclusive: string;
  readonly exclusive?: string;
}

export const MINIMUM: BoundKeywords = { inclusive: 'minimum', exclusive: 'exclusiveMinimum' };
export const MAXIMUM: BoundKeywords = { inclusive: 'maximum', exclusive: 'exclusiveMaximum' };

/** The greatest lower bound any conjunct sets (exclusive wins a tie), if any sets one. */
export function lowerBound(
  conjuncts: readonly Conjunct[],
  keywords: BoundKeywords | string,
): Bound | undefined {
  return tightest(
    conjuncts,
    asKeywords(keywords),
    (a, b) => a.value > b.value || (a.value === b.value && a.exclusive),
  );
}

/** The least upper bound any conjunct sets (exclusive wins a tie), if any sets one. */
export function upperBound(
  conjuncts: readonly Conjunct[],
  keywords: BoundKeywords | string,
): Bound | undefined {
  return tightest(
    conjuncts,
    asKeywords(keywords),
    (a, b) => a.value < b.value || (a.value === b.value && a.exclusive),
  );
}

function asKeywords(keywords: BoundKeywords | string): BoundKeywords {
  return typeof keywords === 'string' ? { inclusive: keywords } : keywords;
}

function tightest(
  conjuncts: readonly Conjunct[],
  keywords: BoundKeywords,
  better: (a: Bound, b: Bound) => boolean,
): Bound | undefined {
  let best: Bound | undefined;
  for (const { schema, label } of conjuncts) {
    for (const [keyword, exclusive] of [
      [keywords.inclusive, false],
      [keywords.exclusive, true],
    ] as const) {
      const value = keyword === undefined ? undefined : numberAt(schema, keyword);
      if (keyword === undefined || value === undefined) continue;
      const bound = { value, exclusive, keyword, label };
      if (best === undefined || better(bound, best)) best = bound;
    }
  }
  return best;
}

/** True when no number lies between the bounds (either may be missing). */
export function emptyInterval(lo: Bound | undefined, hi: Bound | undefined): boolean {
  if (lo === undefined || hi === undefined) return false;
  return lo.value > hi.value || (lo.value === hi.value && (lo.exclusive || hi.exclusive));
}

/** The least integer the lower bound admits (`-Infinity` when unbounded). */
export function lowestInteger(lo: Bound | undefined): number {
  if (lo === undefined) return -Infinity;
  return lo.exclusive ? Math.floor(lo.value) + 1 : Math.ceil(lo.value);
}

/** The greatest integer the upper bound admits (`Infinity` when unbounded). */
export function highestInteger(hi: Bound | undefined): number {
  if (hi === undefined) return Infinity;
  return hi.exclusive ? Math.ceil(hi.value) - 1 : Math.floor(hi.value);
}

/** "the caller's minItems 7 exceeds the facet's maxItems 5", at `pointer`. */
export function boundFinding(pointer: string, lo: Bound, hi: Bound): Finding {
  const low = `${owner(lo.label)} ${lo.keyword} ${lo.value}`;
  const high = `${owner(hi.label)} ${hi.keyword} ${hi.value}`;
  const message =
    lo.value > hi.value ? `${low} exceeds ${high}` : `${low} and ${high} leave no room between them`;
  return { pointer, keywords: [lo.keyword, hi.keyword], message };
}
