import type { Finding } from '../verdict';
import {
  boundFinding,
  emptyInterval,
  highestInteger,
  lowerBound,
  lowestInteger,
  MAXIMUM,
  MINIMUM,
  upperBound,
} from './bounds';
import { owner, type Conjunct } from './conjunct';

/**
 * Why no number satisfies the conjuncts' bounds. With `fraction` false (some `type` says integer)
 * only integers count: `minimum 1.2` and `maximum 1.8` leave none. `multipleOf` is not read.
 */
export function numberConflicts(
  conjuncts: readonly Conjunct[],
  fraction: boolean,
  pointer: string,
): Finding[] {
  const lo = lowerBound(conjuncts, MINIMUM);
  const hi = upperBound(conjuncts, MAXIMUM);
  if (lo !== undefined && hi !== undefined && emptyInterval(lo, hi)) return [boundFinding(pointer, lo, hi)];
  if (fraction || lowestInteger(lo) <= highestInteger(hi) || lo === undefined || hi === undefined) return [];
  const low = `${owner(lo.label)} ${lo.keyword} ${lo.value}`;
  const message = `no integer lies between ${low} and ${owner(hi.label)} ${hi.keyword} ${hi.value}`;
  return [{ pointer, keywords: ['type', lo.keyword, hi.keyword], message }];
}

/** Why no string has a length the conjuncts allow (`pattern` and `format` are not read). */
export function stringConflicts(conjuncts: readonly Conjunct[], pointer: string): Finding[] {
  const lo = lowerBound(conjuncts, 'minLength');
  const hi = upperBound(conjuncts, 'maxLength');
  return lo !== undefined && hi !== undefined && lo.value > hi.value ? [boundFinding(pointer, lo, hi)] : [];
}
