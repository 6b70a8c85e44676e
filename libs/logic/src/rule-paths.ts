/**
 * Which data a JSONLogic rule reads at the top level of its data: the one reading of rules the
 * planner (what to produce), the validator (who enforces it) and the executor (when to check it)
 * share. The bodies of `map`, `filter`, `all`, `none`, `some` and `reduce` read each item, not the
 * data, so their `var`s are not paths of the data.
 */

const ITEM_SCOPED = new Set(['map', 'filter', 'all', 'none', 'some', 'reduce']);
const MAX_DEPTH = 256;

type Rule = Record<string, unknown>;
const isRule = (v: unknown): v is Rule =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1;
const argsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** The data paths (dot-separated, non-empty) a rule reads at the top level of its data. */
export function rulePaths(rule: unknown): string[] {
  const found = new Set<string>();
  collect(rule, found, 0);
  return [...found];
}

/** The top-level properties a rule reads, sorted and unique. */
export function ruleRoots(rule: unknown): string[] {
  return [...new Set(rulePaths(rule).map(rootOf))].sort();
}

/** The first segment of a data path: the top-level property it reads. */
export const rootOf = (path: string): string => path.split('.')[0];

function collect(node: unknown, found: Set<string>, depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(node)) {
    for (const item of node) collect(item, found, depth + 1);
    return;
  }
  if (!isRule(node)) return;
  const [op, raw] = Object.entries(node)[0];
  const args = argsOf(raw);
  const path = (a: unknown) =>
    typeof a === 'string' && a !== ''
      ? (found.add(a), true)
      : typeof a === 'number'
        ? (found.add(String(a)), true)
        : false;
  if (op === 'var') {
    if (!path(args[0])) collect(args[0], found, depth + 1);
    collect(args.slice(1), found, depth + 1);
  } else if (op === 'missing') {
    for (const a of args) if (!path(a)) collect(a, found, depth + 1);
  } else if (op === 'missing_some') {
    for (const a of argsOf(args[1])) if (!path(a)) collect(a, found, depth + 1);
  } else if (ITEM_SCOPED.has(op)) {
    collect(args[0], found, depth + 1); // the array comes from the data; the body reads each item
    if (op === 'reduce') collect(args[2], found, depth + 1);
  } else {
    collect(args, found, depth + 1);
  }
}
