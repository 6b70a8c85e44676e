import type { JsonLogicOperator } from '@flex/contracts';
import type { Meter } from './evaluation-budget';
import {
  chargeConversion,
  chargeTexts,
  isStructured,
  jsAdd,
  looselyEqual,
  relate,
  toNumber,
  toText,
} from './js-coercion';
import { readVar } from './read-var';

// The operators that evaluate every operand first, one function each, with json-logic-js's
// semantics (logic.js 2.0.5) spelled out over JavaScript's conversions, and what each costs.

/** Operators that decide which operands to evaluate, and how often (see rule-interpreter.ts). */
export type ControlOperator =
  'if' | '?:' | 'and' | 'or' | 'map' | 'filter' | 'reduce' | 'all' | 'some' | 'none';

/** Operators applied to their evaluated operands. */
export type ValueOperator = Exclude<JsonLogicOperator, ControlOperator>;

/** Evaluated operands, the data (`var` and `missing` read it), the meter, and where in the rule. */
export type Apply = (args: readonly unknown[], data: unknown, meter: Meter) => unknown;

/** JSONLogic truthiness: JavaScript's, except that an empty array is false. */
export const truthy = (value: unknown): boolean => !(Array.isArray(value) && value.length === 0) && !!value;

const lessThan =
  (strict: boolean): Apply =>
  ([a, b, c], _data, meter) => {
    const relation = strict ? '<' : '<=';
    if (c === undefined) return relate(relation, a, b, meter);
    return relate(relation, a, b, meter) && relate(relation, b, c, meter);
  };

const strictlyEqual = ([a, b]: readonly unknown[], meter: Meter): boolean => {
  chargeTexts([a, b], meter);
  return a === b;
};

/** Every operator json-logic-js would apply to evaluated operands; the compiler checks none is missing. */
export const VALUE_OPERATORS: Readonly<Record<ValueOperator, Apply>> = {
  '==': ([a, b], _data, meter) => looselyEqual(a, b, meter),
  '!=': ([a, b], _data, meter) => !looselyEqual(a, b, meter),
  '===': (args, _data, meter) => strictlyEqual(args, meter),
  '!==': (args, _data, meter) => !strictlyEqual(args, meter),
  '>': ([a, b], _data, meter) => relate('>', a, b, meter),
  '>=': ([a, b], _data, meter) => relate('>=', a, b, meter),
  '<': lessThan(true),
  '<=': lessThan(false),
  '!!': ([a]) => truthy(a),
  '!': ([a]) => !truthy(a),
  '%': ([a, b], _data, meter) => toNumber(a, meter) % toNumber(b, meter),
  '/': ([a, b], _data, meter) => toNumber(a, meter) / toNumber(b, meter),
  '-': ([a, b], _data, meter) =>
    b === undefined ? -toNumber(a, meter) : toNumber(a, meter) - toNumber(b, meter),
  '+': (args, _data, meter) =>
    args.reduce<number>((sum, x) => parseFloat(toText(sum, meter)) + parseFloat(toText(x, meter)), 0),
  '*': (args, _data, meter) => product(args, meter),
  min: (args, _data, meter) => Math.min(...args.map((x) => toNumber(x, meter))),
  max: (args, _data, meter) => Math.max(...args.map((x) => toNumber(x, meter))),
  in: ([a, b], _data, meter) => contains(a, b, meter),
  cat: (args, _data, meter) => cat(args, meter),
  substr: ([source, start, end], _data, meter) => substr(source, start, end, meter),
  merge: (args, _data, meter) => merge(args, meter),
  var: ([path, fallback], data) => readVar(data, path, fallback),
  missing: (args, data, meter) => missing(keysOf(args), data, meter),
  missing_some: ([needed, options], data, meter) => missingSome(needed, options, data, meter),
};

/** `*` folds without a start: no operand throws, one operand comes back as it is. */
function product(args: readonly unknown[], meter: Meter): unknown {
  if (args.length === 0) throw new TypeError('Reduce of empty array with no initial value');
  let result = args[0];
  for (const x of args.slice(1)) result = parseFloat(toText(result, meter)) * parseFloat(toText(x, meter));
  return result;
}

/** `in`: a search of an array (strict equality) or of a text; anything else holds nothing. */
function contains(needle: unknown, haystack: unknown, meter: Meter): boolean {
  if (!haystack) return false;
  if (Array.isArray(haystack)) {
    meter.step(haystack.length);
    return haystack.indexOf(needle) !== -1;
  }
  if (typeof haystack === 'string') {
    meter.step(haystack.length);
    return haystack.indexOf(toText(needle, meter)) !== -1;
  }
  // Numbers, booleans and objects have no `indexOf`, unless an object owns one: JSON cannot hold
  // a function, so calling it throws as json-logic-js's call would.
  if (!isStructured(haystack) || !Object.prototype.hasOwnProperty.call(haystack, 'indexOf')) return false;
  if (Reflect.get(haystack, 'indexOf') === undefined) return false;
  throw new TypeError('b.indexOf is not a function');
}

function cat(args: readonly unknown[], meter: Meter): string {
  for (const x of args) chargeConversion(x, meter);
  const text = args.join('');
  meter.allocate(text.length);
  return text;
}

/** `substr` with PHP's negative length: that many characters off the end. */
function substr(source: unknown, start: unknown, end: unknown, meter: Meter): string {
  const text = toText(source, meter);
  const from = toNumber(start, meter);
  let piece: string;
  if (relate('<', end, 0, meter)) {
    const tail = text.substr(from);
    piece = tail.substr(0, toNumber(jsAdd(tail.length, end, meter), meter));
  } else {
    piece = text.substr(from, end === undefined ? undefined : toNumber(end, meter));
  }
  meter.allocate(piece.length);
  return piece;
}

/** `merge`: arrays flattened one level, anything else appended (what `concat` does, charged first). */
function merge(args: readonly unknown[], meter: Meter): unknown[] {
  meter.allocate(args.reduce<number>((n, x) => n + (Array.isArray(x) ? x.length : 1), 0));
  return new Array<unknown>().concat(...args);
}

/** `missing` takes its keys as operands, or as one array operand. */
const keysOf = (args: readonly unknown[]): readonly unknown[] => (Array.isArray(args[0]) ? args[0] : args);

/** The keys whose `var` is null or '' (json-logic-js reads each key as `{"var": key}`). */
function missing(keys: readonly unknown[], data: unknown, meter: Meter): unknown[] {
  const absent: unknown[] = [];
  for (const key of keys) {
    meter.step();
    const value = Array.isArray(key) ? readVar(data, key[0], key[1]) : readVar(data, key, undefined);
    if (value === null || value === '') {
      meter.allocate(1);
      absent.push(key);
    }
  }
  return absent;
}

/** `missing_some`: nothing when at least `needed` of the keys are there, else the missing ones. */
function missingSome(needed: unknown, options: unknown, data: unknown, meter: Meter): unknown[] {
  const absent = missing(keysOf(Array.isArray(options) ? options : [options]), data, meter);
  if (options === null || options === undefined) {
    throw new TypeError(`Cannot read properties of ${String(options)} (reading 'length')`);
  }
  const count = typeof options === 'string' || Array.isArray(options) ? options.length : ownLength(options);
  const present = toNumber(count, meter) - absent.length;
  return relate('>=', present, needed, meter) ? [] : absent;
}

/** `value.length` of a number, a boolean or an object: undefined unless an object owns `length`. */
function ownLength(value: unknown): unknown {
  if (!isStructured(value) || !Object.prototype.hasOwnProperty.call(value, 'length')) return undefined;
  return Reflect.get(value, 'length');
}
