import {
  highestInteger,
  lowerBound,
  lowestInteger,
  MAXIMUM,
  MINIMUM,
  upperBound,
  type Bound,
} from './bounds';
import type { Conjunct } from './conjunct';
import { numberAt } from './schema-read';

/** The integer range the bounds leave, as `[least, most]` (either may be infinite). */
export function integerRange(conjuncts: readonly Conjunct[]): [number, number] {
  return [lowestInteger(lowerBound(conjuncts, MINIMUM)), highestInteger(upperBound(conjuncts, MAXIMUM))];
}

/**
 * Numbers worth trying: multiples of the `multipleOf`s, `want` integers nearest 0 within the
 * bounds, then (when non-integers are allowed) the bounds themselves and a midpoint.
 */
export function numberCandidates(conjuncts: readonly Conjunct[], fraction: boolean, want: number): number[] {
  const lo = lowerBound(conjuncts, MINIMUM);
  const hi = upperBound(conjuncts, MAXIMUM);
  const [least, most] = integerRange(conjuncts);
  const steps = conjuncts
    .map((c) => numberAt(c.schema, 'multipleOf'))
    .filter((m): m is number => m !== undefined && m > 0);
  const values = [
    ...multiples(steps, least, most, want),
    ...integersNearZero(least, most, Math.max(want, 3)),
  ];
  if (fraction) values.push(...fractions(lo, hi));
  return values;
}

function integersNearZero(least: number, most: number, want: number): number[] {
  if (least > most) return [];
  const start = Math.min(Math.max(0, least), most);
  const values: number[] = [];
  for (let offset = 0; values.length < want && offset < 2 * want; offset += 1) {
    for (const value of offset === 0 ? [start] : [start + offset, start - offset]) {
      if (value >= least && value <= most && Number.isSafeInteger(value)) values.push(value);
    }
  }
  return values;
}

/** Multiples of every step at once when the steps are integers (their lcm), else of each step. */
function multiples(steps: readonly number[], least: number, most: number, want: number): number[] {
  if (steps.length === 0) return [];
  const common = steps.every(Number.isInteger) ? steps.reduce(lcm) : undefined;
  return (common === undefined ? steps : [common]).flatMap((step) => {
    const first =
      least === -Infinity
        ? most === Infinity
          ? 0
          : Math.floor(Math.min(most, 0) / step) * step
        : Math.ceil(least / step) * step;
    return Array.from({ length: want }, (_, i) => first + i * step).filter(
      (v) => v <= most && Number.isFinite(v),
    );
  });
}

function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a / gcd(a, b)) * b;
}

function fractions(lo: Bound | undefined, hi: Bound | undefined): number[] {
  const values: number[] = [];
  if (lo !== undefined && !lo.exclusive) values.push(lo.value);
  if (hi !== undefined && !hi.exclusive) values.push(hi.value);
  if (lo !== undefined && hi !== undefined) values.push(lo.value + (hi.value - lo.value) / 2);
  else if (lo !== undefined) values.push(lo.value + 0.5);
  else if (hi !== undefined) values.push(hi.value - 0.5);
  else values.push(0.5);
  return values;
}
