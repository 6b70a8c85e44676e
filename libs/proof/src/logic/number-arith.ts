import { FULL_RANGE, makeRange, rangeHas, type NumberRange, type NumberSet } from './number-set';

// Interval arithmetic over JavaScript numbers. Bounds are computed with the same floating-point
// operations as the values, and rounding is monotonic, so a closed result range stays sound;
// open bounds are dropped because rounding can reach them.

const NO_NUMBER: NumberSet = { nan: false };

function closed(min: number, max: number, integer: boolean): NumberRange | undefined {
  return makeRange(min, max, integer);
}

function hasInfinity(r: NumberRange, sign: 1 | -1): boolean {
  return sign > 0 ? r.max === Infinity : r.min === -Infinity;
}

function closureHas(r: NumberRange, x: number): boolean {
  return r.min <= x && x <= r.max;
}

/** The hull of the non-NaN values among `candidates`, widened to hold `extra` when given. */
function hull(candidates: readonly number[], integer: boolean, extra?: number): NumberRange | undefined {
  const real = candidates.filter((c) => !Number.isNaN(c));
  if (extra !== undefined) real.push(extra);
  if (real.length === 0) return undefined;
  return closed(Math.min(...real), Math.max(...real), integer);
}

function corners(a: NumberRange, b: NumberRange, f: (x: number, y: number) => number): number[] {
  return [f(a.min, b.min), f(a.min, b.max), f(a.max, b.min), f(a.max, b.max)];
}

export function negate(a: NumberSet): NumberSet {
  const r = a.range;
  if (r === undefined) return a;
  return { range: makeRange(-r.max, -r.min, r.integer, r.maxOpen, r.minOpen), nan: a.nan };
}

export function add(a: NumberSet, b: NumberSet): NumberSet {
  const x = a.range;
  const y = b.range;
  if (x === undefined || y === undefined) return nanOnlyIfPossible(a, b);
  const opposite = (hasInfinity(x, 1) && hasInfinity(y, -1)) || (hasInfinity(x, -1) && hasInfinity(y, 1));
  const range = hull(
    corners(x, y, (p, q) => p + q),
    x.integer && y.integer,
  );
  return { range, nan: a.nan || b.nan || opposite };
}

export function subtract(a: NumberSet, b: NumberSet): NumberSet {
  return add(a, negate(b));
}

export function multiply(a: NumberSet, b: NumberSet): NumberSet {
  const x = a.range;
  const y = b.range;
  if (x === undefined || y === undefined) return nanOnlyIfPossible(a, b);
  const infinite = (r: NumberRange) => hasInfinity(r, 1) || hasInfinity(r, -1);
  const zeroTimesInfinity = (closureHas(x, 0) && infinite(y)) || (closureHas(y, 0) && infinite(x));
  const zero = closureHas(x, 0) || closureHas(y, 0) ? 0 : undefined;
  return {
    range: hull(
      corners(x, y, (p, q) => p * q),
      x.integer && y.integer,
      zero,
    ),
    nan: a.nan || b.nan || zeroTimesInfinity,
  };
}

export function divide(a: NumberSet, b: NumberSet): NumberSet {
  const x = a.range;
  const y = b.range;
  if (x === undefined || y === undefined) return nanOnlyIfPossible(a, b);
  const bounded = [x.min, x.max, y.min, y.max].every(Number.isFinite);
  if (!bounded || closureHas(y, 0)) return { range: FULL_RANGE, nan: true };
  return {
    range: hull(
      corners(x, y, (p, q) => p / q),
      false,
    ),
    nan: a.nan || b.nan,
  };
}

/** `a % b`: exact in floating point, with the sign of the dividend and magnitude below |b| and |a|. */
export function remainder(a: NumberSet, b: NumberSet): NumberSet {
  const x = a.range;
  const y = b.range;
  if (x === undefined || y === undefined) return nanOnlyIfPossible(a, b);
  const nan = a.nan || b.nan || closureHas(y, 0) || !Number.isFinite(x.min) || !Number.isFinite(x.max);
  if (y.min === 0 && y.max === 0) return { nan };
  const bound = Math.max(Math.abs(y.min), Math.abs(y.max));
  const cutLow = x.min < -bound;
  const cutHigh = x.max > bound;
  const lo = x.min >= 0 ? 0 : cutLow ? -bound : x.min;
  const hi = x.max <= 0 ? 0 : cutHigh ? bound : x.max;
  return { range: makeRange(lo, hi, x.integer && y.integer, cutLow, cutHigh), nan };
}

/** `Math.min(...)` (`largest` false) or `Math.max(...)` over the argument sets. */
export function extremum(args: readonly NumberSet[], largest: boolean): NumberSet {
  if (args.length === 0) {
    const empty = largest ? -Infinity : Infinity;
    return { range: closed(empty, empty, false), nan: false };
  }
  const nan = args.some((a) => a.nan);
  const ranges = args.map((a) => a.range);
  if (ranges.some((r) => r === undefined)) return nan ? { nan } : NO_NUMBER;
  const defined = ranges.filter((r): r is NumberRange => r !== undefined);
  const mins = defined.map((r) => r.min);
  const maxs = defined.map((r) => r.max);
  const integer = defined.every((r) => r.integer);
  const range = largest
    ? closed(Math.max(...mins), Math.max(...maxs), integer)
    : closed(Math.min(...mins), Math.min(...maxs), integer);
  return { range, nan };
}

function nanOnlyIfPossible(a: NumberSet, b: NumberSet): NumberSet {
  const aPossible = a.range !== undefined || a.nan;
  const bPossible = b.range !== undefined || b.nan;
  return aPossible && bPossible ? { nan: true } : NO_NUMBER;
}

/** True when the set may hold a number other than zero (NaN aside). */
export function mayBeNonZero(set: NumberSet): boolean {
  const r = set.range;
  return r !== undefined && !(r.min === 0 && r.max === 0);
}

export function mayBeZero(set: NumberSet): boolean {
  return set.range !== undefined && rangeHas(set.range, 0);
}
