import { ABSENT, domain, propertyOf, withAbsent, type ArraySet, type Domain, type StringSet } from './domain';
import { join, joinAll } from './domain-join';
import { fromValues } from './domain-values';
import { makeRange } from './number-set';

// `var` as Flex's hardened evaluator runs it (libs/logic safe-json-logic): each segment reads an
// OWN property of an object or array, or the `length` of a string (UTF-16 units); anything else
// (another segment on a string, a number, null, a forbidden segment) ends the walk with the default.

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);
const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** What one path lookup found. */
export interface Lookup {
  /** The values found (an empty path returns the data as it is, `undefined` included). */
  readonly value: Domain;
  /** The walk may end without a value, and `var` then returns its default. */
  readonly defaulted: boolean;
  /** The domain holding the last segment (to tell an array's or a string's `length` from a property). */
  readonly parent: Domain;
}

function isIndex(segment: string): number | undefined {
  const n = Number(segment);
  return Number.isInteger(n) && n >= 0 && n < 2 ** 32 - 1 && String(n) === segment ? n : undefined;
}

function arrayStep(a: ArraySet, segment: string): Domain {
  if (segment === 'length') {
    return domain({ number: { range: makeRange(a.minItems, a.maxItems, true), nan: false } });
  }
  const index = isIndex(segment);
  if (index === undefined || index >= a.maxItems) return ABSENT;
  return index < a.minItems ? a.items : withAbsent(a.items);
}

/**
 * `.length` of the strings in the set. Its bounds already count UTF-16 units: schema-domain reads
 * `minLength: a, maxLength: b` (code points, one or two units each) as [a, 2b].
 */
function stringLength(s: StringSet): Domain {
  return domain({ number: { range: makeRange(s.minLength, s.maxLength, true), nan: false } });
}

function concreteStep(values: readonly unknown[], segment: string): Domain {
  const read = (v: unknown): unknown => {
    if (typeof v === 'string') return segment === 'length' ? v.length : undefined;
    return typeof v === 'object' && v !== null && hasOwn(v, segment)
      ? (v as Record<string, unknown>)[segment]
      : undefined;
  };
  return fromValues(values.map(read));
}

/** The values one segment can read from the domain; `absent` when the walk may end on the default. */
export function step(d: Domain, segment: string): Domain {
  if (FORBIDDEN_SEGMENTS.has(segment)) return ABSENT;
  if (d.finite !== undefined) {
    const found = concreteStep(d.finite, segment);
    return d.absent ? withAbsent(found) : found;
  }
  const scalar =
    d.absent ||
    d.null ||
    d.booleans.true ||
    d.booleans.false ||
    d.number !== undefined ||
    (d.string !== undefined && segment !== 'length');
  const parts: Domain[] = [scalar ? ABSENT : domain({})];
  if (d.string && segment === 'length') parts.push(stringLength(d.string));
  if (d.object) parts.push(propertyOf(d.object, segment));
  if (d.array) parts.push(arrayStep(d.array, segment));
  return joinAll(parts);
}

/** Follows a dotted `var` path (`''`, null or no path: the data itself). */
export function lookup(data: Domain, path: unknown): Lookup {
  if (path === undefined || path === null || path === '') {
    return { value: data, defaulted: false, parent: data };
  }
  let current = data;
  let parent = data;
  let defaulted = false;
  for (const segment of String(path).split('.')) {
    parent = current;
    const next = step(current, segment);
    defaulted = defaulted || next.absent;
    current = withAbsent(next, false);
  }
  return { value: current, defaulted, parent };
}

/** The result of `{"var": [path, fallback]}`: what the path finds, or the fallback where it finds nothing. */
export function varResult(found: Lookup, fallback: Domain): Domain {
  return found.defaulted ? join(found.value, fallback) : found.value;
}
