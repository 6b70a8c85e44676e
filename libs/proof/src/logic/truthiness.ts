import { arraySet, domain, EMPTY, withAbsent, type Domain } from './domain';
import { fromValues } from './domain-values';
import { mayBeNonZero, mayBeZero } from './number-arith';
import { makeRange, NEITHER, outcomes, type Outcomes } from './number-set';

/** JSONLogic truthiness: JavaScript's, except that an empty array is false. */
export function truthyValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

/** Whether values of the domain may be truthy (`true`) and may be falsy (`false`). */
export function truthiness(d: Domain): Outcomes {
  if (d.finite !== undefined) {
    const t = d.finite.some(truthyValue);
    const f = d.absent || d.finite.some((v) => !truthyValue(v));
    return outcomes(t, f);
  }
  const n = d.number;
  const canFalse =
    d.absent ||
    d.null ||
    d.booleans.false ||
    (n !== undefined && (n.nan || mayBeZero(n))) ||
    (d.string !== undefined && d.string.minLength === 0) ||
    (d.array !== undefined && d.array.minItems === 0);
  const canTrue =
    d.booleans.true ||
    (n !== undefined && mayBeNonZero(n)) ||
    (d.string?.maxLength ?? 0) > 0 ||
    (d.array?.maxItems ?? 0) > 0 ||
    d.object !== undefined;
  return canTrue || canFalse ? outcomes(canTrue, canFalse) : NEITHER;
}

/** The values of the domain that are truthy (an over-approximation). */
export function truthyPart(d: Domain): Domain {
  if (d.finite !== undefined) return fromValues(d.finite.filter(truthyValue));
  const n = d.number;
  const range = n?.range && mayBeNonZero(n) ? n.range : undefined;
  const s =
    d.string && d.string.maxLength > 0
      ? { ...d.string, minLength: Math.max(1, d.string.minLength) }
      : undefined;
  const a = d.array && arraySet(Math.max(1, d.array.minItems), d.array.maxItems, d.array.items);
  return domain({
    booleans: outcomes(d.booleans.true, false),
    number: range ? { range, nan: false } : undefined,
    string: s,
    array: a,
    object: d.object,
  });
}

/** The values of the domain that are falsy (an over-approximation). */
export function falsyPart(d: Domain): Domain {
  if (d.finite !== undefined) {
    return withAbsent(fromValues(d.finite.filter((v) => !truthyValue(v))), d.absent);
  }
  const n = d.number;
  const zero = n !== undefined && mayBeZero(n);
  const number =
    n !== undefined && (zero || n.nan)
      ? { range: zero ? makeRange(0, 0, true) : undefined, nan: n.nan }
      : undefined;
  return domain({
    absent: d.absent,
    null: d.null,
    booleans: outcomes(false, d.booleans.false),
    number,
    string: d.string && d.string.minLength === 0 ? { minLength: 0, maxLength: 0 } : undefined,
    array: d.array && d.array.minItems === 0 ? arraySet(0, 0, EMPTY) : undefined,
  });
}
