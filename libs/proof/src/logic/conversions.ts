import { ANY, hasValues, type Domain } from './domain';
import { ANY_NUMBER, joinNumbers, NAN_ONLY, pointSet, rangePoint, type NumberSet } from './number-set';

/** Called when a conversion may throw at runtime (an object owning `toString`, say). */
export type RiskSink = (reason: string) => void;

/** What `String(x)` (or `Array.prototype.join`'s item conversion) may give for x in a domain. */
export interface StringView {
  /** Every possible string, when known. */
  readonly values?: readonly string[];
  readonly minLength: number;
  readonly maxLength: number;
  /** `Number(s)` for every possible s. */
  readonly asNumber: NumberSet;
}

/** `String(x)` (`string`), or an item of `join`/`cat`, where null and undefined become `''`. */
export type StringMode = 'string' | 'join';

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether an object of the domain may own `key` (a JSON value there is never callable). */
export function mayOwn(d: Domain, key: string): boolean {
  if (d.finite !== undefined) return d.finite.some((v) => isRecord(v) && hasOwn(v, key));
  const o = d.object;
  if (o === undefined) return false;
  const named = o.properties.get(key);
  return named !== undefined ? hasValues(named) : o.others !== undefined;
}

/** Whether turning a value of the domain into a string or number may throw. */
export function conversionMayThrow(d: Domain, depth = 0): boolean {
  if (d.finite !== undefined) return d.finite.some((v) => attempt(() => String(v)) === undefined);
  if (d === ANY || mayOwn(d, 'toString')) return true;
  if (depth > 8) return d.array !== undefined;
  return d.array !== undefined && conversionMayThrow(d.array.items, depth + 1);
}

function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

function numbersOfValues(values: readonly number[]): NumberSet {
  return joinAllNumbers(values.map(pointSet));
}

function joinAllNumbers(sets: readonly (NumberSet | undefined)[]): NumberSet {
  return sets.reduce<NumberSet | undefined>((a, b) => joinNumbers(a, b), undefined) ?? { nan: false };
}

function fromStrings(values: readonly string[]): StringView {
  const lengths = values.map((s) => s.length);
  return {
    values,
    minLength: Math.min(...lengths),
    maxLength: Math.max(...lengths),
    asNumber: numbersOfValues(values.map(Number)),
  };
}

function mergeViews(a: StringView | undefined, b: StringView): StringView {
  if (a === undefined) return b;
  const values = a.values && b.values ? [...new Set([...a.values, ...b.values])] : undefined;
  const asNumber = joinNumbers(a.asNumber, b.asNumber) ?? NAN_ONLY;
  const minLength = Math.min(a.minLength, b.minLength);
  return { values, minLength, maxLength: Math.max(a.maxLength, b.maxLength), asNumber };
}

function unknownText(minLength: number, asNumber: NumberSet = ANY_NUMBER): StringView {
  return { minLength, maxLength: Infinity, asNumber };
}

function numberText(n: NumberSet): StringView | undefined {
  const texts = n.nan ? ['NaN'] : [];
  if (n.range === undefined) return texts.length > 0 ? fromStrings(texts) : undefined;
  const point = rangePoint(n.range);
  if (point !== undefined) return fromStrings([...texts, String(point)]);
  return unknownText(1, { range: n.range, nan: n.nan });
}

function arrayText(d: Domain): StringView | undefined {
  const a = d.array;
  if (a === undefined) return undefined;
  if (a.maxItems === 0) return fromStrings(['']);
  // Two or more items always join with a comma, and Number() of such a text is NaN.
  return unknownText(0, a.minItems >= 2 ? NAN_ONLY : ANY_NUMBER);
}

/** The texts values of the domain turn into; undefined when the domain holds no value. */
export function stringView(d: Domain, mode: StringMode, risk: RiskSink): StringView | undefined {
  if (conversionMayThrow(d)) risk('a value may be an object owning `toString`, which cannot be converted');
  const nullish = mode === 'join' ? '' : undefined;
  if (d.finite !== undefined) {
    const texts = d.finite.flatMap((v) => {
      const text = v === null && nullish !== undefined ? nullish : attempt(() => String(v));
      return text === undefined ? [] : [text];
    });
    const all = d.absent ? [...texts, nullish ?? 'undefined'] : texts;
    return all.length > 0 ? fromStrings(all) : undefined;
  }
  const parts: (StringView | undefined)[] = [
    d.absent ? fromStrings([nullish ?? 'undefined']) : undefined,
    d.null ? fromStrings([nullish ?? 'null']) : undefined,
    d.booleans.true ? fromStrings(['true']) : undefined,
    d.booleans.false ? fromStrings(['false']) : undefined,
    d.number && numberText(d.number),
    d.string && (d.string.maxLength === 0 ? fromStrings(['']) : { ...d.string, asNumber: ANY_NUMBER }),
    arrayText(d),
    d.object ? fromStrings(['[object Object]']) : undefined,
  ];
  let view: StringView | undefined;
  for (const p of parts) if (p !== undefined) view = mergeViews(view, p);
  return view;
}

/** `Number(x)` (ToNumber, as `-`, `/`, `%`, `min`, `max` and comparisons apply it). */
export function toNumberSet(d: Domain, risk: RiskSink): NumberSet {
  if (conversionMayThrow(d)) risk('a value may be an object owning `toString`, which cannot be converted');
  if (d.finite !== undefined) {
    const values = d.finite.flatMap((v) => {
      const n = attempt(() => Number(v));
      return n === undefined ? [] : [n];
    });
    return numbersOfValues(d.absent ? [...values, NaN] : values);
  }
  const parts: (NumberSet | undefined)[] = [
    d.absent || d.object ? NAN_ONLY : undefined,
    d.null || d.booleans.false ? pointSet(0) : undefined,
    d.booleans.true ? pointSet(1) : undefined,
    d.number,
    d.string && (d.string.maxLength === 0 ? pointSet(0) : ANY_NUMBER),
    arrayText(d)?.asNumber,
  ];
  return joinAllNumbers(parts);
}

/** `parseFloat(x)` (what `+` and `*` apply to their operands). */
export function parseFloatSet(d: Domain, risk: RiskSink): NumberSet {
  if (conversionMayThrow(d)) risk('a value may be an object owning `toString`, which cannot be converted');
  if (d.finite !== undefined) {
    const values = d.finite.flatMap((v) => {
      const n = attempt(() => parseFloat(String(v)));
      return n === undefined ? [] : [n];
    });
    return numbersOfValues(d.absent ? [...values, NaN] : values);
  }
  const textual = (d.string?.maxLength ?? 0) > 0 || (d.array?.maxItems ?? 0) > 0;
  const nanSources =
    d.absent ||
    d.null ||
    d.booleans.true ||
    d.booleans.false ||
    d.object !== undefined ||
    d.string !== undefined ||
    d.array !== undefined;
  return joinAllNumbers([nanSources ? NAN_ONLY : undefined, d.number, textual ? ANY_NUMBER : undefined]);
}
