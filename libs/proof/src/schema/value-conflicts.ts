import type { Finding } from '../verdict';
import { owner, uniqueKeywords, type Conjunct } from './conjunct';
import { distinctValues, valueKey } from '../logic/value-key';
import { rejectionOf } from './schema-check';
import { hasKeyword } from './schema-read';

/** The values a conjunct lists through `const` or `enum`. */
interface Listed {
  readonly conjunct: Conjunct;
  readonly keyword: 'const' | 'enum';
  readonly values: readonly unknown[];
}

/** What `enum` and `const` leave: no finding and `candidates` (or none at all: no list), or findings. */
export interface ValueDomain {
  readonly findings: Finding[];
  /** Every value that may satisfy the conjunction, when some conjunct lists its values. */
  readonly candidates?: readonly unknown[];
}

const SHOWN = 3;

/**
 * The values the conjuncts' `const`s and `enum`s have in common, less those some conjunct
 * certainly rejects (Ajv decides). The conjunction is empty when none is left: that is exact,
 * since any value it accepts must be one of them.
 */
export function valueDomain(conjuncts: readonly Conjunct[], pointer: string): ValueDomain {
  const lists = conjuncts.flatMap(listed);
  if (lists.length === 0) return { findings: [] };
  const common = distinctValues(lists[0].values).filter((v) =>
    lists.every((list) => includes(list.values, v)),
  );
  if (common.length === 0) return { findings: [disjointFinding(lists, pointer)] };
  const rejected = common.map((value) => ({ value, by: firstRejection(value, conjuncts) }));
  const candidates = rejected.filter((r) => r.by === undefined).map((r) => r.value);
  if (candidates.length > 0) return { findings: [], candidates };
  return { findings: [rejectedFinding(lists, rejected, pointer)], candidates };
}

function listed(conjunct: Conjunct): Listed[] {
  const lists: Listed[] = [];
  if (hasKeyword(conjunct.schema, 'const')) {
    lists.push({ conjunct, keyword: 'const', values: [conjunct.schema.const] });
  }
  const values = hasKeyword(conjunct.schema, 'enum') ? conjunct.schema.enum : undefined;
  if (Array.isArray(values)) lists.push({ conjunct, keyword: 'enum', values });
  return lists;
}

function includes(values: readonly unknown[], value: unknown): boolean {
  const key = valueKey(value);
  return values.some((v) => valueKey(v) === key);
}

function describe(list: Listed): string {
  const shown = list.keyword === 'const' ? JSON.stringify(list.values[0]) : `enum ${preview(list.values)}`;
  return `${owner(list.conjunct.label)} ${list.keyword === 'const' ? `const ${shown}` : shown}`;
}

function preview(values: readonly unknown[]): string {
  const head = values.slice(0, SHOWN).map((v) => JSON.stringify(v));
  return `[${head.join(', ')}${values.length > SHOWN ? ', …' : ''}]`;
}

function disjointFinding(lists: readonly Listed[], pointer: string): Finding {
  // A const goes first: "the caller's const "x" is not in the facet's enum" reads best.
  const ordered = [...lists].sort((a, b) => (a.keyword === b.keyword ? 0 : a.keyword === 'const' ? -1 : 1));
  for (const a of ordered) {
    for (const b of ordered) {
      if (a === b || a.values.some((v) => includes(b.values, v))) continue;
      const message =
        a.keyword === 'const'
          ? `${describe(a)} is not in ${describe(b)}`
          : `${describe(a)} and ${describe(b)} have no value in common`;
      return { pointer, keywords: uniqueKeywords([a.keyword, b.keyword]), message };
    }
  }
  const message = `no value is in every list: ${lists.map(describe).join(', ')}`;
  return { pointer, keywords: uniqueKeywords(lists.map((l) => l.keyword)), message };
}

function firstRejection(
  value: unknown,
  conjuncts: readonly Conjunct[],
): { keyword: string; label: string; pointer: string } | undefined {
  for (const conjunct of conjuncts) {
    const rejection = rejectionOf(value, conjunct.schema);
    if (rejection) return { keyword: rejection.keyword, label: conjunct.label, pointer: rejection.pointer };
  }
  return undefined;
}

function rejectedFinding(
  lists: readonly Listed[],
  rejected: ReadonlyArray<{ value: unknown; by?: { keyword: string; label: string; pointer: string } }>,
  pointer: string,
): Finding {
  const reasons = rejected.flatMap(({ value, by }) => (by ? [{ value, by }] : []));
  const shown = reasons.slice(0, SHOWN).map(({ value, by }) => {
    const where = by.pointer === '' ? '' : ` at ${by.pointer}`;
    return `${JSON.stringify(value)} fails ${owner(by.label)} ${by.keyword}${where}`;
  });
  const more = reasons.length > SHOWN ? `; and ${reasons.length - SHOWN} more` : '';
  const keywords = uniqueKeywords([...lists.map((l) => l.keyword), ...reasons.map((r) => r.by.keyword)]);
  return {
    pointer,
    keywords,
    message:
      `no value ${lists.map(describe).join(' and ')} allows passes every schema: ${shown.join('; ')}` + more,
  };
}
