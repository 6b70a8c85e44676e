import type { Domain } from './domain';
import { stringView, toNumberSet, type RiskSink, type StringView } from './conversions';
import { kindsOf, mayBe, restrict, type Kind } from './kinds';
import {
  BOTH,
  eitherOutcome,
  equalOutcomes,
  lessOutcomes,
  NEITHER,
  outcomes,
  type NumberSet,
  type Outcomes,
} from './number-set';

// Loose and strict equality and the relational operators over domains, pair by pair of the
// JavaScript types the operands may have. Two objects or arrays compare by reference, which a
// domain cannot know: such pairs may be equal or not.

const union = (list: readonly Outcomes[]): Outcomes => list.reduce(eitherOutcome, NEITHER);
const ignore: RiskSink = () => undefined;

/** Outcomes of `s === t` for texts s, t of two views. */
export function textEqual(a: StringView, b: StringView): Outcomes {
  if (a.values && b.values) {
    const pairs = a.values.flatMap((s) => (b.values ?? []).map((t) => s === t));
    return outcomes(pairs.includes(true), pairs.includes(false));
  }
  const overlap = a.minLength <= b.maxLength && b.minLength <= a.maxLength;
  return outcomes(overlap, !(a.maxLength === 0 && b.maxLength === 0));
}

function textLess(a: StringView, b: StringView, orEqual: boolean): Outcomes {
  if (a.values && b.values) {
    const pairs = a.values.flatMap((s) => (b.values ?? []).map((t) => (orEqual ? s <= t : s < t)));
    return outcomes(pairs.includes(true), pairs.includes(false));
  }
  if (orEqual && a.maxLength === 0) return outcomes(true, false);
  if (!orEqual && b.maxLength === 0) return outcomes(false, true);
  return BOTH;
}

function numbers(d: Domain, kinds: readonly Kind[], risk: RiskSink): NumberSet | undefined {
  return mayBe(d, ...kinds) ? toNumberSet(restrict(d, kinds), risk) : undefined;
}

function texts(d: Domain, kinds: readonly Kind[], risk: RiskSink): StringView | undefined {
  return mayBe(d, ...kinds) ? stringView(restrict(d, kinds), 'string', risk) : undefined;
}

const NON_NULLISH: readonly Kind[] = ['boolean', 'number', 'string', 'array', 'object'];

/** Outcomes of `a == b` (JavaScript loose equality). */
export function looseEqual(a: Domain, b: Domain, risk: RiskSink): Outcomes {
  const parts: Outcomes[] = [];
  const nullA = mayBe(a, 'undefined', 'null');
  const nullB = mayBe(b, 'undefined', 'null');
  if (nullA && nullB) parts.push(outcomes(true, false));
  const nullVersusOther = (nullA && mayBe(b, ...NON_NULLISH)) || (nullB && mayBe(a, ...NON_NULLISH));
  if (nullVersusOther) parts.push(outcomes(false, true));
  if (mayBe(a, 'array', 'object') && mayBe(b, 'array', 'object')) parts.push(BOTH);
  // Booleans compare as 0 and 1; objects and arrays as the text ToPrimitive gives them.
  const numA = numbers(a, ['boolean', 'number'], risk);
  const numB = numbers(b, ['boolean', 'number'], risk);
  const strA = texts(a, ['string'], risk);
  const strB = texts(b, ['string'], risk);
  const primitiveA = numA !== undefined || strA !== undefined;
  const primitiveB = numB !== undefined || strB !== undefined;
  const refA = primitiveB ? texts(a, ['array', 'object'], risk) : undefined;
  const refB = primitiveA ? texts(b, ['array', 'object'], risk) : undefined;
  if (numA && numB) parts.push(equalOutcomes(numA, numB));
  for (const [n, s] of [
    [numA, strB],
    [numB, strA],
    [numA, refB],
    [numB, refA],
  ] as const) {
    if (n && s) parts.push(equalOutcomes(n, s.asNumber));
  }
  for (const [s, t] of [
    [strA, strB],
    [strA, refB],
    [refA, strB],
  ] as const) {
    if (s && t) parts.push(textEqual(s, t));
  }
  return union(parts);
}

/** Outcomes of `a === b`. */
export function strictEqual(a: Domain, b: Domain): Outcomes {
  const ka = kindsOf(a);
  const kb = kindsOf(b);
  const parts: Outcomes[] = [];
  if ([...ka].some((k) => [...kb].some((j) => j !== k))) parts.push(outcomes(false, true));
  for (const k of ka) {
    if (!kb.has(k)) continue;
    if (k === 'undefined' || k === 'null') parts.push(outcomes(true, false));
    if (k === 'array' || k === 'object') parts.push(BOTH);
    if (k === 'boolean' || k === 'number') {
      const x = numbers(a, [k], ignore);
      const y = numbers(b, [k], ignore);
      if (x && y) parts.push(equalOutcomes(x, y));
    }
    if (k === 'string') {
      const x = texts(a, ['string'], ignore);
      const y = texts(b, ['string'], ignore);
      if (x && y) parts.push(textEqual(x, y));
    }
  }
  return union(parts);
}

const TEXTUAL: readonly Kind[] = ['string', 'array', 'object'];
const NUMERIC: readonly Kind[] = ['undefined', 'null', 'boolean', 'number'];

/** Outcomes of `a < b` (`orEqual`: `a <= b`): two texts compare as texts, anything else as numbers. */
export function relational(a: Domain, b: Domain, orEqual: boolean, risk: RiskSink): Outcomes {
  const ta = texts(a, TEXTUAL, risk);
  const tb = texts(b, TEXTUAL, risk);
  const na = numbers(a, NUMERIC, risk);
  const nb = numbers(b, NUMERIC, risk);
  const parts: Outcomes[] = [];
  if (ta && tb) parts.push(textLess(ta, tb, orEqual));
  if (na && nb) parts.push(lessOutcomes(na, nb, orEqual));
  if (na && tb) parts.push(lessOutcomes(na, tb.asNumber, orEqual));
  if (ta && nb) parts.push(lessOutcomes(ta.asNumber, nb, orEqual));
  return union(parts);
}
