/**
 * Reading JSONLogic constraints symbolically: which data paths a rule reads from the output, and a
 * readable form for diagnostics (`qaFindings.overallScore >= 0.8`).
 */

// Operators whose later arguments run once per array item, with `var` relative to the item.
const ITEM_SCOPED = new Set(['map', 'filter', 'all', 'none', 'some', 'reduce']);
const INFIX = new Set(['==', '===', '!=', '!==', '>', '>=', '<', '<=', '+', '-', '*', '/', '%', 'in']);
const MAX_READABLE = 4_000;

type Rule = Record<string, unknown>;
const isRule = (v: unknown): v is Rule => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1;
const argsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** The output paths (dot-separated, non-empty) a rule reads at the top level of the output. */
export function rootPaths(rule: unknown): string[] {
  const found = new Set<string>();
  collect(rule, found);
  return [...found];
}

function collect(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collect(item, found);
    return;
  }
  if (!isRule(node)) return;
  const [op, raw] = Object.entries(node)[0];
  const args = argsOf(raw);
  if (op === 'var') {
    if (typeof args[0] === 'string' && args[0] !== '') found.add(args[0]);
    else if (typeof args[0] === 'number') found.add(String(args[0]));
    else collect(args[0], found);
    collect(args.slice(1), found);
  } else if (op === 'missing') {
    for (const a of args) typeof a === 'string' && a !== '' ? found.add(a) : collect(a, found);
  } else if (op === 'missing_some') {
    for (const a of argsOf(args[1])) typeof a === 'string' && a !== '' ? found.add(a) : collect(a, found);
  } else if (ITEM_SCOPED.has(op)) {
    collect(args[0], found); // the array comes from the output; the body reads each item
    if (op === 'reduce') collect(args[2], found);
  } else {
    collect(args, found);
  }
}

/** The first segment of a data path: the top-level property (facet) it reads. */
export const rootOf = (path: string): string => path.split('.')[0];

/** A readable one-line form of a rule. */
export function formatRule(rule: unknown): string {
  const text = format(rule);
  return text.length > MAX_READABLE ? `${text.slice(0, MAX_READABLE - 1)}…` : text;
}

function format(node: unknown): string {
  if (!isRule(node)) return Array.isArray(node) ? `[${node.map(format).join(', ')}]` : JSON.stringify(node) ?? 'null';
  const [op, raw] = Object.entries(node)[0];
  const args = argsOf(raw);
  if (op === 'var') return typeof args[0] === 'string' || typeof args[0] === 'number' ? String(args[0]) || '$' : `var(${args.map(format).join(', ')})`;
  if (INFIX.has(op) && args.length === 2) return `${format(args[0])} ${op} ${format(args[1])}`;
  if ((op === '<' || op === '<=') && args.length === 3) return `${format(args[0])} ${op} ${format(args[1])} ${op} ${format(args[2])}`;
  if (op === 'and' || op === 'or') return args.map((a) => (isRule(a) && ['and', 'or'].includes(Object.keys(a)[0]) ? `(${format(a)})` : format(a))).join(` ${op} `);
  if (op === '!') return `not ${format(args[0])}`;
  return `${op}(${args.map(format).join(', ')})`;
}
