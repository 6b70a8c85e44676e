import { ABSENT, arraySet, domain, EMPTY, FINITE_LIMIT, isEmpty, stringSet, type Domain } from './domain';
import { joinAll } from './domain-join';
import { fromValues } from './domain-values';
import { combinations } from './enumerate';
import { strictEqual } from './compare';
import { conversionMayThrow, mayOwn, stringView, type RiskSink, type StringView } from './conversions';
import { kindsOf, mayBe, restrict } from './kinds';
import { BOTH, eitherOutcome, NEITHER, outcomes, type Outcomes } from './number-set';

// `cat`, `substr`, `in` and `merge` over domains.

/** `cat`: every operand joined as text (null and undefined as ''); the texts joined are allocated. */
export function catTransfer(
  args: readonly Domain[],
  risk: RiskSink,
  allocate: (items: number) => void,
): Domain {
  const views = args.map((a) => stringView(a, 'join', risk));
  const known = views.filter((v): v is StringView => v !== undefined);
  if (known.length < views.length) return EMPTY;
  const count = known.reduce((n, v) => n * (v.values?.length ?? Infinity), 1);
  if (count <= FINITE_LIMIT) {
    const pieces = combinations(known.map((v) => v.values ?? []));
    const length = (part: unknown) => (typeof part === 'string' ? part.length : 0);
    for (const parts of pieces) allocate(parts.reduce<number>((n, part) => n + length(part), 0));
    return fromValues(pieces.map((parts) => parts.join('')));
  }
  const min = known.reduce((n, v) => n + v.minLength, 0);
  const max = known.reduce((n, v) => n + v.maxLength, 0);
  return domain({ string: stringSet(min, max) });
}

/** `substr`: a piece of `String(source)`, never longer than it. */
export function substrTransfer(args: readonly Domain[], risk: RiskSink): Domain {
  const source = stringView(args[0] ?? ABSENT, 'string', risk);
  for (const bound of args.slice(1, 3)) {
    if (conversionMayThrow(bound)) risk('a `substr` bound may be an object owning `toString`');
  }
  return source === undefined ? EMPTY : domain({ string: stringSet(0, source.maxLength) });
}

function textSearch(needle: StringView, haystack: StringView): Outcomes {
  if (needle.values && haystack.values) {
    const found = needle.values.flatMap((n) => (haystack.values ?? []).map((h) => h.includes(n)));
    return outcomes(found.includes(true), found.includes(false));
  }
  if (needle.maxLength === 0) return outcomes(true, false);
  if (needle.minLength > haystack.maxLength) return outcomes(false, true);
  return BOTH;
}

function searchString(needle: Domain, haystack: Domain, risk: RiskSink): Outcomes {
  const view = stringView(haystack, 'string', risk);
  if (view === undefined) return NEITHER;
  // '' is falsy: `in` answers false without searching.
  const empty = view.minLength === 0 ? outcomes(false, true) : NEITHER;
  const nonEmpty = nonEmptyTexts(view);
  const text = stringView(needle, 'string', risk);
  const found = nonEmpty !== undefined && text !== undefined ? textSearch(text, nonEmpty) : NEITHER;
  return eitherOutcome(empty, found);
}

function nonEmptyTexts(view: StringView): StringView | undefined {
  const values = view.values?.filter((s) => s.length > 0);
  if (values === undefined) {
    return view.maxLength > 0 ? { ...view, minLength: Math.max(1, view.minLength) } : undefined;
  }
  if (values.length === 0) return undefined;
  return { ...view, values, minLength: Math.min(...values.map((s) => s.length)) };
}

function searchArray(needle: Domain, haystack: Domain): Outcomes {
  const a = haystack.array;
  if (a === undefined) return NEITHER;
  if (a.maxItems === 0) return outcomes(false, true);
  const eq = strictEqual(needle, a.items);
  return outcomes(eq.true, a.minItems === 0 || eq.false);
}

/** `in`: a substring of a (non-empty) string, or an item (by `===`) of an array; false for anything else. */
export function inTransfer(needle: Domain, haystack: Domain, risk: RiskSink): Outcomes {
  const kinds = kindsOf(haystack);
  const other = [...kinds].some((k) => k !== 'string' && k !== 'array');
  if (mayOwn(haystack, 'indexOf')) risk('`in` on an object owning `indexOf` throws');
  const parts: Outcomes[] = [other ? outcomes(false, true) : NEITHER];
  if (kinds.has('string')) parts.push(searchString(needle, restrict(haystack, ['string']), risk));
  if (kinds.has('array')) parts.push(searchArray(needle, restrict(haystack, ['array'])));
  return parts.reduce(eitherOutcome, NEITHER);
}

/** `merge`: arrays are flattened one level, anything else is appended as an item. */
export function mergeTransfer(args: readonly Domain[]): Domain {
  let min = 0;
  let max = 0;
  const items: Domain[] = [];
  for (const a of args) {
    const array = restrict(a, ['array']).array;
    const single = restrict(a, ['undefined', 'null', 'boolean', 'number', 'string', 'object']);
    const lengths: [number, number][] = [];
    if (mayBe(a, 'array') && array) {
      lengths.push([array.minItems, array.maxItems]);
      items.push(array.items);
    }
    if (!isEmpty(single)) {
      lengths.push([1, 1]);
      items.push(single);
    }
    if (lengths.length === 0) return EMPTY;
    min += Math.min(...lengths.map(([lo]) => lo));
    max += Math.max(...lengths.map(([, hi]) => hi));
  }
  const array = arraySet(min, max, joinAll(items));
  return array === undefined ? EMPTY : domain({ array });
}
