import type { Finding } from '../verdict';
import { boundFinding, lowerBound, upperBound, type Bound } from './bounds';
import {
  ANY_ITEM,
  owner,
  toConjunction,
  uniqueKeywords,
  type Conjunct,
  type Labelled,
  type Recurse,
} from './conjunct';
import { allowedKinds } from './kinds';
import { schemaAt, schemaListAt } from './schema-read';
import { valueDomain } from './value-conflicts';

/** Why an element must exist: a `minItems` of at least 1, or a `contains`. */
interface Demand {
  readonly count: number;
  readonly keyword: string;
  readonly reason: string;
}

/**
 * Why no array satisfies the conjuncts: item-count bounds, then the elements that must exist
 * (`minItems ≥ 1`, `contains`) having no possible value, then `uniqueItems` asking for more
 * distinct elements than the items can take. An `items` conflict with no element required leaves
 * `[]`, so it is no conflict.
 */
export function arrayConflicts(conjuncts: readonly Conjunct[], pointer: string, recurse: Recurse): Finding[] {
  const lo = lowerBound(conjuncts, 'minItems');
  const hi = upperBound(conjuncts, 'maxItems');
  if (lo !== undefined && hi !== undefined && lo.value > hi.value) return [boundFinding(pointer, lo, hi)];
  const contains = conjuncts.filter((c) => schemaAt(c.schema, 'contains') !== undefined);
  if (contains.length > 0 && hi !== undefined && hi.value < 1) {
    const needs = `${owner(contains[0].label)} contains needs an element`;
    const message = `${needs} but ${owner(hi.label)} maxItems is ${hi.value}`;
    return [{ pointer, keywords: ['contains', 'maxItems'], message }];
  }
  const demand = demandOf(lo, contains);
  if (demand === undefined) return [];
  const tuple = conjuncts.some((c) => schemaListAt(c.schema, 'items') !== undefined);
  const found = positionConflicts(conjuncts, demand, tuple, pointer, recurse);
  if (found.length > 0 || tuple) return found;
  const inContains = containsConflicts(conjuncts, contains, pointer, recurse);
  return inContains.length > 0 ? inContains : uniqueConflicts(conjuncts, demand, pointer);
}

function demandOf(lo: Bound | undefined, contains: readonly Conjunct[]): Demand | undefined {
  if (lo !== undefined && lo.value >= 1) {
    const elements = lo.value === 1 ? 'an element' : 'elements';
    const reason = `${owner(lo.label)} minItems ${lo.value} requires ${elements}`;
    return { count: lo.value, keyword: 'minItems', reason };
  }
  if (contains.length === 0) return undefined;
  return {
    count: 1,
    keyword: 'contains',
    reason: `${owner(contains[0].label)} contains requires an element`,
  };
}

/** The subschemas for the element at `index`: object `items`, tuple `items[index]`, `additionalItems`. */
export function positionParts(conjuncts: readonly Conjunct[], index: number): Labelled[] {
  return conjuncts.flatMap(({ schema, label }): Labelled[] => {
    const tuple = schemaListAt(schema, 'items');
    if (tuple === undefined) {
      const items = schemaAt(schema, 'items');
      return items === undefined ? [] : [{ schema: items, label }];
    }
    const at = index < tuple.length ? tuple[index] : schemaAt(schema, 'additionalItems');
    return at === undefined ? [] : [{ schema: at, label }];
  });
}

function positionConflicts(
  conjuncts: readonly Conjunct[],
  demand: Demand,
  tuple: boolean,
  pointer: string,
  recurse: Recurse,
): Finding[] {
  const longest = Math.max(0, ...conjuncts.map((c) => schemaListAt(c.schema, 'items')?.length ?? 0));
  const positions = tuple ? Math.min(demand.count, longest + 1) : 1;
  for (let index = 0; index < positions; index += 1) {
    const parts = positionParts(conjuncts, index);
    if (parts.length === 0) continue;
    const found = recurse(parts, `${pointer}/${tuple ? index : ANY_ITEM}`);
    if (found.length > 0) return found.map((f) => because(f, demand.keyword, demand.reason));
  }
  return [];
}

function containsConflicts(
  conjuncts: readonly Conjunct[],
  contains: readonly Conjunct[],
  pointer: string,
  recurse: Recurse,
): Finding[] {
  for (const { schema, label } of contains) {
    const wanted = schemaAt(schema, 'contains');
    if (wanted === undefined) continue;
    const found = recurse(
      [...positionParts(conjuncts, 0), { schema: wanted, label }],
      `${pointer}/${ANY_ITEM}`,
    );
    if (found.length > 0) {
      return found.map((f) => because(f, 'contains', `${owner(label)} contains requires such an element`));
    }
  }
  return [];
}

function uniqueConflicts(conjuncts: readonly Conjunct[], demand: Demand, pointer: string): Finding[] {
  const unique = conjuncts.find((c) => c.schema.uniqueItems === true);
  if (unique === undefined || demand.count < 2) return [];
  const size = domainSize(positionParts(conjuncts, 0));
  if (size >= demand.count) return [];
  const distinct = `all different (${owner(unique.label)} uniqueItems)`;
  const message = `${demand.reason}, ${distinct}, but an element can take only ${size} value(s)`;
  return [{ pointer, keywords: ['uniqueItems', demand.keyword], message }];
}

/** An upper bound on how many distinct values satisfy the parts (`Infinity` when not finite). */
function domainSize(parts: readonly Labelled[]): number {
  const conjunction = toConjunction(parts);
  if (conjunction.empty) return 0;
  const domain = valueDomain(conjunction.conjuncts, '');
  if (domain.findings.length > 0) return 0;
  if (domain.candidates !== undefined) return domain.candidates.length;
  const { kinds } = allowedKinds(conjunction.conjuncts, '');
  if ([...kinds].some((kind) => kind !== 'null' && kind !== 'boolean')) return Infinity;
  return (kinds.has('null') ? 1 : 0) + (kinds.has('boolean') ? 2 : 0);
}

function because(finding: Finding, keyword: string, reason: string): Finding {
  return {
    ...finding,
    keywords: uniqueKeywords([...finding.keywords, keyword]),
    message: `${finding.message}; ${reason}`,
  };
}
