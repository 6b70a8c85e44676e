/**
 * Sets of JavaScript numbers: an interval of the extended reals plus NaN. A bound at ±Infinity
 * includes the infinity itself, so computed values (1 / 0, Math.max()) stay inside the set.
 */
export interface NumberRange {
  readonly min: number;
  readonly minOpen: boolean;
  readonly max: number;
  readonly maxOpen: boolean;
  /** Every finite member is an integer. */
  readonly integer: boolean;
}

/** The numbers a value may be; `range` undefined means no number besides (maybe) NaN. */
export interface NumberSet {
  readonly range?: NumberRange;
  readonly nan: boolean;
}

/** True and false as possible outcomes of a test. */
export interface Outcomes {
  readonly true: boolean;
  readonly false: boolean;
}

export const NEITHER: Outcomes = { true: false, false: false };
export const BOTH: Outcomes = { true: true, false: true };

export function outcomes(canTrue: boolean, canFalse: boolean): Outcomes {
  return { true: canTrue, false: canFalse };
}

export function eitherOutcome(a: Outcomes, b: Outcomes): Outcomes {
  return { true: a.true || b.true, false: a.false || b.false };
}

export function negateOutcome(a: Outcomes): Outcomes {
  return { true: a.false, false: a.true };
}

/** A normalised range (integer bounds rounded inward), or undefined when it holds no number. */
export function makeRange(
  min: number,
  max: number,
  integer = false,
  minOpen = false,
  maxOpen = false,
): NumberRange | undefined {
  if (Number.isNaN(min) || Number.isNaN(max)) return undefined;
  let lo = min;
  let hi = max;
  let loOpen = minOpen && Number.isFinite(min);
  let hiOpen = maxOpen && Number.isFinite(max);
  if (integer) {
    if (Number.isFinite(lo)) lo = loOpen && Number.isInteger(lo) ? lo + 1 : Math.ceil(lo);
    if (Number.isFinite(hi)) hi = hiOpen && Number.isInteger(hi) ? hi - 1 : Math.floor(hi);
    loOpen = false;
    hiOpen = false;
  }
  if (lo > hi || (lo === hi && (loOpen || hiOpen))) return undefined;
  return { min: lo, minOpen: loOpen, max: hi, maxOpen: hiOpen, integer };
}

export const FULL_RANGE: NumberRange = {
  min: -Infinity,
  minOpen: false,
  max: Infinity,
  maxOpen: false,
  integer: false,
};
export const ANY_NUMBER: NumberSet = { range: FULL_RANGE, nan: true };
export const NAN_ONLY: NumberSet = { nan: true };

export function pointSet(value: number): NumberSet {
  if (Number.isNaN(value)) return NAN_ONLY;
  return { range: makeRange(value, value, Number.isInteger(value)), nan: false };
}

export function rangeHas(range: NumberRange, x: number): boolean {
  if (Number.isNaN(x)) return false;
  if (range.integer && Number.isFinite(x) && !Number.isInteger(x)) return false;
  const aboveMin = range.min < x || (range.min === x && !range.minOpen);
  return aboveMin && (x < range.max || (x === range.max && !range.maxOpen));
}

export function setHas(set: NumberSet, x: number): boolean {
  return Number.isNaN(x) ? set.nan : set.range !== undefined && rangeHas(set.range, x);
}

/** The single number in the range, if it holds exactly one. */
export function rangePoint(range: NumberRange | undefined): number | undefined {
  return range !== undefined && range.min === range.max ? range.min : undefined;
}

export function hullRange(a: NumberRange | undefined, b: NumberRange | undefined): NumberRange | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const lowA = a.min < b.min || (a.min === b.min && !a.minOpen);
  const highA = a.max > b.max || (a.max === b.max && !a.maxOpen);
  return {
    min: lowA ? a.min : b.min,
    minOpen: lowA ? a.minOpen : b.minOpen,
    max: highA ? a.max : b.max,
    maxOpen: highA ? a.maxOpen : b.maxOpen,
    integer: a.integer && b.integer,
  };
}

export function meetRange(a: NumberRange | undefined, b: NumberRange | undefined): NumberRange | undefined {
  if (a === undefined || b === undefined) return undefined;
  const lowA = a.min > b.min || (a.min === b.min && a.minOpen);
  const highA = a.max < b.max || (a.max === b.max && a.maxOpen);
  return makeRange(
    lowA ? a.min : b.min,
    highA ? a.max : b.max,
    a.integer || b.integer,
    lowA ? a.minOpen : b.minOpen,
    highA ? a.maxOpen : b.maxOpen,
  );
}

export function joinNumbers(a: NumberSet | undefined, b: NumberSet | undefined): NumberSet | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { range: hullRange(a.range, b.range), nan: a.nan || b.nan };
}

/** Outcomes of `x < y` (or `x <= y`) for numbers x in `a`, y in `b`; NaN compares false. */
export function lessOutcomes(a: NumberSet, b: NumberSet, orEqual: boolean): Outcomes {
  const nan = a.nan || b.nan;
  if (a.range === undefined || b.range === undefined) return outcomes(false, nan);
  const x = a.range;
  const y = b.range;
  const touching = x.min === y.max && !x.minOpen && !y.maxOpen;
  const canTrue = x.min < y.max || (orEqual && touching);
  const canFalse = orEqual ? x.max > y.min : x.max > y.min || (x.max === y.min && !x.maxOpen && !y.minOpen);
  return outcomes(canTrue, canFalse || nan);
}

/** Outcomes of `x === y` for numbers (NaN equals nothing). */
export function equalOutcomes(a: NumberSet, b: NumberSet): Outcomes {
  const shared = meetRange(a.range, b.range) !== undefined;
  const pa = rangePoint(a.range);
  const alwaysSame = pa !== undefined && pa === rangePoint(b.range) && !a.nan && !b.nan;
  return outcomes(shared, !alwaysSame);
}
