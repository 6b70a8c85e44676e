/**
 * A readable form of JSONLogic constraints for diagnostics (`qaFindings.overallScore >= 0.8`);
 * which paths a rule reads is `@flex/logic`'s (`rulePaths`), shared with the planner and executor.
 */

const INFIX = new Set(['==', '===', '!=', '!==', '>', '>=', '<', '<=', '+', '-', '*', '/', '%', 'in']);
const MAX_READABLE = 4_000;

type Rule = Record<string, unknown>;
const isRule = (v: unknown): v is Rule =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1;
const argsOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

export { rootOf, rulePaths as rootPaths } from '@flex/logic';

/** A readable one-line form of a rule. */
export function formatRule(rule: unknown): string {
  const text = format(rule);
  return text.length > MAX_READABLE ? `${text.slice(0, MAX_READABLE - 1)}…` : text;
}

function format(node: unknown): string {
  if (!isRule(node))
    return Array.isArray(node) ? `[${node.map(format).join(', ')}]` : (JSON.stringify(node) ?? 'null');
  const [op, raw] = Object.entries(node)[0];
  const args = argsOf(raw);
  if (op === 'var')
    return typeof args[0] === 'string' || typeof args[0] === 'number'
      ? String(args[0]) || '$'
      : `var(${args.map(format).join(', ')})`;
  if (INFIX.has(op) && args.length === 2) return `${format(args[0])} ${op} ${format(args[1])}`;
  if ((op === '<' || op === '<=') && args.length === 3)
    return `${format(args[0])} ${op} ${format(args[1])} ${op} ${format(args[2])}`;
  if (op === 'and' || op === 'or')
    return args
      .map((a) => (isRule(a) && ['and', 'or'].includes(Object.keys(a)[0]) ? `(${format(a)})` : format(a)))
      .join(` ${op} `);
  if (op === '!') return `not ${format(args[0])}`;
  return `${op}(${args.map(format).join(', ')})`;
}
