import type { RulePlace } from './evaluation-budget';
import { VALUE_OPERATORS, type Apply, type ControlOperator, type ValueOperator } from './value-operators';

// A rule read once into a tree of nodes, so that evaluating it (many times, inside iterations)
// neither looks keys up nor allocates places: each node knows its operator, its operands and
// where it sits in the rule.

const CONTROL: ReadonlySet<string> = new Set<ControlOperator>([
  'if',
  '?:',
  'and',
  'or',
  'map',
  'filter',
  'reduce',
  'all',
  'some',
  'none',
]);

const isControl = (op: string): op is ControlOperator => CONTROL.has(op);
const isValue = (op: string): op is ValueOperator =>
  Object.prototype.hasOwnProperty.call(VALUE_OPERATORS, op);

type Placed = RulePlace;

/** A node of a compiled rule. */
export type CompiledNode =
  | (Placed & { readonly kind: 'literal'; readonly value: unknown })
  | (Placed & { readonly kind: 'array'; readonly items: readonly CompiledNode[] })
  | (Placed & {
      readonly kind: 'control';
      readonly op: ControlOperator;
      readonly args: readonly CompiledNode[];
    })
  | (Placed & { readonly kind: 'value'; readonly apply: Apply; readonly args: readonly CompiledNode[] })
  | (Placed & { readonly kind: 'unknown'; readonly op: string; readonly args: readonly CompiledNode[] });

/** An object with exactly one key is an operation (json-logic-js's `is_logic`); anything else a literal. */
const isOperation = (node: unknown): node is object =>
  typeof node === 'object' && node !== null && !Array.isArray(node) && Object.keys(node).length === 1;

/**
 * Reads `rule` into nodes. Nothing is refused here: an unknown operator throws when (and only
 * when) it is evaluated, as in json-logic-js. Recursion follows the rule's nesting, which the
 * validator caps.
 */
export function compileRule(rule: unknown, parent?: RulePlace, key?: string | number): CompiledNode {
  const place: Placed = { parent, key };
  if (Array.isArray(rule)) {
    const items = rule.map((item, i) => compileRule(item, place, i));
    return Object.assign(place, { kind: 'array' as const, items });
  }
  if (!isOperation(rule)) return Object.assign(place, { kind: 'literal' as const, value: rule });
  const [op] = Object.keys(rule);
  const raw: unknown = Reflect.get(rule, op);
  // `{"op": [a, b]}` lists its operands (at /op/0, /op/1); `{"op": a}` has one, a, at /op.
  const listed: RulePlace = { parent: place, key: op };
  const args = Array.isArray(raw)
    ? raw.map((arg, i) => compileRule(arg, listed, i))
    : [compileRule(raw, place, op)];
  if (isControl(op)) return Object.assign(place, { kind: 'control' as const, op, args });
  if (isValue(op)) return Object.assign(place, { kind: 'value' as const, apply: VALUE_OPERATORS[op], args });
  return Object.assign(place, { kind: 'unknown' as const, op, args });
}
