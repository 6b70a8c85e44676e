import fc from 'fast-check';
import { lowerBound, MAXIMUM, MINIMUM, upperBound } from './bounds';
import type { Conjunct } from './conjunct';
import { integerRange } from './number-candidates';
import { patternSamples } from './pattern-sample';
import { codePointLength, lengthRange } from './string-candidates';
import { numberAt } from './schema-read';

// How far past its lower bound an unbounded measure (a number, a length) is drawn.
const SPREAD = 1_000;
const LENGTH_SPREAD = 24;
const SHORT = 64;
// Exactly-maxLength strings are drawn up to this length; past it a maximum is a safety cap, not a shape.
const LONGEST_BOUNDARY = 10_000;
// Longer minimum lengths are not drawn at all: the witness stands in.
const LONGEST_DRAWN = 100_000;

/** Integers within the bounds (a window of them when unbounded), in steps of an integer `multipleOf`. */
export function integerArbitrary(conjuncts: readonly Conjunct[]): fc.Arbitrary<number> | undefined {
  const [least, most] = integerRange(conjuncts);
  const steps = conjuncts
    .map((c) => numberAt(c.schema, 'multipleOf'))
    .filter((m): m is number => m !== undefined && m > 0);
  const step = steps.length === 1 && Number.isInteger(steps[0]) ? steps[0] : 1;
  const low = Math.ceil(window(least, most)[0] / step);
  const high = Math.floor(window(least, most)[1] / step);
  return low > high ? undefined : fc.integer({ min: low, max: high }).map((k) => k * step);
}

function window(least: number, most: number): [number, number] {
  const low = Number.isFinite(least) ? least : Number.isFinite(most) ? most - SPREAD : -SPREAD;
  const high = Number.isFinite(most) ? most : low + 2 * SPREAD;
  const safe = (n: number): number =>
    Math.min(Math.max(n, -Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  return [safe(low), safe(high)];
}

/** Doubles within the bounds (exclusive ones honoured), mixed with integers; never `-0`. */
export function numberArbitrary(conjuncts: readonly Conjunct[]): fc.Arbitrary<number> | undefined {
  const lo = lowerBound(conjuncts, MINIMUM);
  const hi = upperBound(conjuncts, MAXIMUM);
  const integers = integerArbitrary(conjuncts);
  let doubles: fc.Arbitrary<number> | undefined;
  try {
    doubles = fc
      .double({
        min: lo?.value,
        max: hi?.value,
        minExcluded: lo?.exclusive,
        maxExcluded: hi?.exclusive,
        noNaN: true,
        noDefaultInfinity: true,
      })
      .map((n) => (Object.is(n, -0) ? 0 : n));
  } catch {
    doubles = undefined; // bounds fast-check cannot draw between (adjacent doubles): integers or the witness
  }
  const arbs = [integers, doubles].filter((a): a is fc.Arbitrary<number> => a !== undefined);
  return arbs.length === 0 ? undefined : fc.oneof(...arbs);
}

/**
 * Strings of the allowed lengths, mostly ASCII, sometimes any code point, with the boundary
 * lengths (`minLength`, and `maxLength` up to 10,000) drawn on purpose. With a `pattern`, strings
 * start with a sample of it; with a `format`, fast-check's generator for it when there is one.
 */
export function stringArbitrary(conjuncts: readonly Conjunct[]): fc.Arbitrary<string> | undefined {
  const [least, most] = lengthRange(conjuncts);
  if (least > most || least > LONGEST_DRAWN) return undefined;
  const pattern = conjuncts.map((c) => c.schema.pattern).find((p): p is string => typeof p === 'string');
  if (pattern !== undefined) {
    return patterned(pattern, least, most) ?? text(least, Math.min(most, least + LENGTH_SPREAD));
  }
  const format = conjuncts.map((c) => c.schema.format).find((f): f is string => typeof f === 'string');
  const formatted = format === undefined ? undefined : FORMAT_ARBITRARIES[format]?.();
  if (formatted !== undefined) return formatted;
  const arbs = [
    { weight: 6, arbitrary: text(least, Math.min(most, least + LENGTH_SPREAD)) },
    { weight: 1, arbitrary: exactly(least) },
  ];
  if (most > least && most <= LONGEST_BOUNDARY) arbs.push({ weight: 1, arbitrary: exactly(most) });
  return fc.oneof(...arbs);
}

function text(least: number, most: number): fc.Arbitrary<string> {
  if (least > SHORT) return long(least, most);
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: least, maxLength: most }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: least, maxLength: most }) },
  );
}

/** A string of exactly `length` code points. */
function exactly(length: number): fc.Arbitrary<string> {
  return length <= SHORT ? text(length, length) : long(length, length);
}

/** Long strings repeat a short random seed: drawing each character would cost too much. */
function long(least: number, most: number): fc.Arbitrary<string> {
  const seed = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 });
  return fc.tuple(seed, fc.integer({ min: least, max: most })).map(([chars, length]) => {
    const points = [...chars];
    return Array.from({ length }, (_, i) => points[i % points.length]).join('');
  });
}

function patterned(pattern: string, least: number, most: number): fc.Arbitrary<string> | undefined {
  const samples = patternSamples(pattern);
  if (samples === undefined) return undefined;
  const closed = /(^|[^\\])\$$/.test(pattern);
  return fc.constantFrom(samples.least, samples.most).chain((core) => {
    const used = codePointLength(core);
    const low = Math.max(0, least - used);
    const high = closed ? low : Math.max(low, Math.min(most - used, low + LENGTH_SPREAD));
    return text(low, high).map((tail) => core + tail);
  });
}

const FORMAT_ARBITRARIES: Readonly<Record<string, () => fc.Arbitrary<string>>> = {
  email: () => fc.emailAddress(),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  'uri-reference': () => fc.webUrl(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  uuid: () => fc.uuid(),
  'date-time': () => isoDates().map((d) => d.toISOString()),
  date: () => isoDates().map((d) => d.toISOString().slice(0, 10)),
};

function isoDates(): fc.Arbitrary<Date> {
  return fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2999-12-31T23:59:59Z'),
    noInvalidDate: true,
  });
}
