import type { Meter } from './evaluation-budget';

// JavaScript's own conversions, as json-logic-js's operators apply them to JSON values, and what
// they cost. JSON values hold no functions, so an object's `toString` or `valueOf` is either
// Object.prototype's or an own non-callable property that JavaScript skips: `String(value)` is
// the primitive every operator would get, and throws exactly when the operator would.

/** An array or an object: what JavaScript converts before comparing or computing. */
export const isStructured = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * Charges reading `value` as text or number: a string's characters are read (operations); an
 * array or object becomes a new text (items). The walk charges as it goes, so an array holding
 * the same array many times (cheap to build, exponential as text) stops at the budget.
 */
export function chargeConversion(value: unknown, meter: Meter): void {
  if (typeof value === 'string') {
    meter.step(value.length);
    return;
  }
  if (!isStructured(value)) return;
  const pending: unknown[][] = [];
  meter.allocate(1);
  if (Array.isArray(value)) pending.push(value);
  for (let array = pending.pop(); array !== undefined; array = pending.pop()) {
    meter.allocate(array.length);
    for (const item of array) {
      if (typeof item === 'string') meter.allocate(item.length);
      else if (Array.isArray(item)) pending.push(item);
    }
  }
}

/** The primitive JavaScript converts `value` to before comparing or computing (charged). */
export function toPrimitive(value: unknown, meter: Meter): unknown {
  chargeConversion(value, meter);
  return isStructured(value) ? String(value) : value;
}

/** `a < b`, `a <= b`, `a > b`, `a >= b` as JavaScript evaluates them. */
export type Relation = '<' | '<=' | '>' | '>=';

export function relate(relation: Relation, a: unknown, b: unknown, meter: Meter): boolean {
  const x = toPrimitive(a, meter);
  const y = toPrimitive(b, meter);
  if (typeof x === 'string' && typeof y === 'string') return compare(relation, x, y);
  return compare(relation, Number(x), Number(y));
}

function compare<T extends string | number>(relation: Relation, x: T, y: T): boolean {
  switch (relation) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}

/** `a == b`: an array or object meeting a primitive (other than null) is converted first. */
export function looselyEqual(a: unknown, b: unknown, meter: Meter): boolean {
  const converts = (x: unknown, y: unknown) =>
    isStructured(x) && !isStructured(y) && y !== null && y !== undefined;
  if (converts(a, b)) chargeConversion(a, meter);
  else if (converts(b, a)) chargeConversion(b, meter);
  else chargeTexts([a, b], meter);
  return a == b;
}

/** Charges reading every string among `values` (comparing, searching or parsing it). */
export function chargeTexts(values: readonly unknown[], meter: Meter): void {
  for (const value of values) if (typeof value === 'string') meter.step(value.length);
}

/** `a + b` as JavaScript adds a number and an operand: text when either side converts to text. */
export function jsAdd(a: number, b: unknown, meter: Meter): number | string {
  const y = toPrimitive(b, meter);
  return typeof y === 'string' ? String(a) + y : a + Number(y);
}

/** `Number(value)`, charged. */
export function toNumber(value: unknown, meter: Meter): number {
  return Number(toPrimitive(value, meter));
}

/** `String(value)` (`parseFloat` and `String.prototype` methods convert so), charged. */
export function toText(value: unknown, meter: Meter): string {
  return String(toPrimitive(value, meter));
}
