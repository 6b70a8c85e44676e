import type { Finding, JsonSchema } from '../verdict';
import { arrayConflicts } from './array-conflicts';
import {
  labelSchemas,
  owner,
  spend,
  toConjunction,
  type Budget,
  type Conjunct,
  type Labelled,
  type Recurse,
} from './conjunct';
import { allowedKinds, kindOfValue, type Kind } from './kinds';
import { objectConflicts } from './object-conflicts';
import { numberConflicts, stringConflicts } from './scalar-conflicts';
import { notConflicts, unionConflicts } from './union-conflicts';
import { valueDomain } from './value-conflicts';

// Nested unions multiply the work; past this many nested searches the rest is assumed satisfiable,
// which can only hide a conflict (unknown), never invent one.
const MAX_SEARCHES = 400;

/**
 * Sound emptiness check of a conjunction of JSON Schemas: each finding proves that no value
 * satisfies all of `schemas` (an empty list means "no conflict found", not "satisfiable").
 *
 * `pointer` is the JSON pointer of the value the schemas govern (`/copyVariants`); findings point
 * below it, `*` standing for every element of an array (`/copyVariants/*` + `/body`), an index
 * only for tuple-form `items`. `labels` name the schemas in messages ("the facet", "the caller");
 * by default "schema 1", "schema 2", … . A property conflict counts only for required properties,
 * an element conflict only when an element must exist (`minItems ≥ 1`, `contains`).
 */
export function conflictsOf(
  schemas: readonly JsonSchema[],
  pointer = '',
  labels?: readonly string[],
): Finding[] {
  const budget: Budget = { left: MAX_SEARCHES };
  const recurse: Recurse = (parts, at) => (spend(budget) ? conflictsAt(parts, at, recurse) : []);
  return recurse(labelSchemas(schemas, labels), pointer);
}

function conflictsAt(parts: readonly Labelled[], pointer: string, recurse: Recurse): Finding[] {
  const conjunction = toConjunction(parts);
  if (conjunction.empty) {
    return [
      {
        pointer,
        keywords: ['false'],
        message: `${owner(conjunction.falseFrom)} schema is false: it accepts no value`,
      },
    ];
  }
  const { conjuncts } = conjunction;
  const typed = allowedKinds(conjuncts, pointer);
  if (typed.findings.length > 0) return typed.findings;
  const negated = notConflicts(conjuncts, pointer);
  if (negated.length > 0) return negated;
  const domain = valueDomain(conjuncts, pointer);
  if (domain.findings.length > 0) return domain.findings;
  const kinds = domain.candidates === undefined ? typed.kinds : valueKinds(domain.candidates);
  const byKind = kindConflicts(conjuncts, kinds, pointer, recurse);
  return byKind.length > 0 ? byKind : unionConflicts(conjuncts, pointer, recurse);
}

function valueKinds(values: readonly unknown[]): Set<Kind> {
  return new Set(values.map(kindOfValue).filter((kind): kind is Kind => kind !== undefined));
}

/** The conjunction is empty only when it is empty for every kind its types leave. */
function kindConflicts(
  conjuncts: readonly Conjunct[],
  kinds: ReadonlySet<Kind>,
  pointer: string,
  recurse: Recurse,
): Finding[] {
  if (kinds.has('null') || kinds.has('boolean')) return [];
  const checks: Array<() => Finding[]> = [];
  if (kinds.has('integer') || kinds.has('fraction')) {
    checks.push(() => numberConflicts(conjuncts, kinds.has('fraction'), pointer));
  }
  if (kinds.has('string')) checks.push(() => stringConflicts(conjuncts, pointer));
  if (kinds.has('array')) checks.push(() => arrayConflicts(conjuncts, pointer, recurse));
  if (kinds.has('object')) checks.push(() => objectConflicts(conjuncts, pointer, recurse));
  const findings: Finding[] = [];
  for (const check of checks) {
    const found = check();
    if (found.length === 0) return [];
    findings.push(...found);
  }
  return findings;
}
