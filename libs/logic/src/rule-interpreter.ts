import type { Meter } from './evaluation-budget';
import { compileRule, type CompiledNode } from './compiled-rule';
import { truthy, type ControlOperator } from './value-operators';

// A JSONLogic interpreter for the allowed operators, step for step json-logic-js's `apply`
// (logic.js 2.0.5): the same operands evaluated in the same order, the same results, the same
// throws. Unlike json-logic-js it can be stopped: every node evaluated, item iterated and item
// allocated is counted on the meter, which throws EvaluationBudgetExceeded past its budget. Its
// recursion follows the rule, never the data, so its depth is the rule's (capped by the validator).

type Args = readonly CompiledNode[];

/** Evaluates `rule` over `data` as json-logic-js would; throws past the meter's budget. */
export function interpret(rule: unknown, data: unknown, meter: Meter): unknown {
  return evaluate(compileRule(rule), data, meter);
}

function evaluate(node: CompiledNode | undefined, data: unknown, meter: Meter): unknown {
  if (node === undefined) return undefined;
  meter.at = node;
  meter.step();
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'array':
      meter.allocate(node.items.length);
      return node.items.map((item) => evaluate(item, data, meter));
    case 'control':
      return control(node.op, node.args, data, meter);
    case 'value': {
      const values = node.args.map((arg) => evaluate(arg, data, meter));
      meter.at = node;
      return node.apply(values, data, meter);
    }
    case 'unknown':
      for (const arg of node.args) evaluate(arg, data, meter);
      throw new Error(`Unrecognized operation ${node.op}`);
  }
}

function control(op: ControlOperator, args: Args, data: unknown, meter: Meter): unknown {
  switch (op) {
    case 'if':
    case '?:':
      return choose(args, data, meter);
    case 'and':
      return connect(args, data, meter, false);
    case 'or':
      return connect(args, data, meter, true);
    case 'map':
      return mapItems(args, data, meter);
    case 'filter':
      return filterItems(args, data, meter);
    case 'reduce':
      return reduceItems(args, data, meter);
    case 'all':
    case 'some':
    case 'none':
      return quantify(op, args, data, meter);
  }
}

/** `if`: the branch after the first truthy condition, else the last operand when odd, else null. */
function choose(args: Args, data: unknown, meter: Meter): unknown {
  let i = 0;
  for (; i < args.length - 1; i += 2) {
    if (truthy(evaluate(args[i], data, meter))) return evaluate(args[i + 1], data, meter);
  }
  return args.length === i + 1 ? evaluate(args[i], data, meter) : null;
}

/** `and` returns the first falsy operand, `or` the first truthy one; else the last (undefined if none). */
function connect(args: Args, data: unknown, meter: Meter, stopOn: boolean): unknown {
  let current: unknown;
  for (const arg of args) {
    current = evaluate(arg, data, meter);
    if (truthy(current) === stopOn) return current;
  }
  return current;
}

/** The items an iteration runs over, or undefined when its first operand is not an array. */
function source(args: Args, data: unknown, meter: Meter): readonly unknown[] | undefined {
  const items = evaluate(args[0], data, meter);
  return Array.isArray(items) ? items : undefined;
}

function mapItems(args: Args, data: unknown, meter: Meter): unknown[] {
  const items = source(args, data, meter);
  if (items === undefined) return [];
  meter.allocate(items.length);
  return items.map((item) => evaluate(args[1], item, meter));
}

function filterItems(args: Args, data: unknown, meter: Meter): unknown[] {
  const items = source(args, data, meter);
  if (items === undefined) return [];
  const kept: unknown[] = [];
  for (const item of items) {
    if (!truthy(evaluate(args[1], item, meter))) continue;
    meter.allocate(1);
    kept.push(item);
  }
  return kept;
}

/** `reduce`: the body over `{current, accumulator}` for each item; the initial value is evaluated first. */
function reduceItems(args: Args, data: unknown, meter: Meter): unknown {
  const items = source(args, data, meter);
  const written = args[2];
  const absent = written === undefined || (written.kind === 'literal' && written.value === undefined);
  const initial = absent ? null : evaluate(written, data, meter);
  if (items === undefined) return initial;
  let accumulator = initial;
  for (const current of items) {
    meter.allocate(1);
    accumulator = evaluate(args[1], { current, accumulator }, meter);
  }
  return accumulator;
}

/** `all` and `some` are false on an empty array or a non-array, `none` true; each stops at its answer. */
function quantify(op: 'all' | 'some' | 'none', args: Args, data: unknown, meter: Meter): boolean {
  const items = source(args, data, meter);
  if (items === undefined || items.length === 0) return op === 'none';
  for (const item of items) {
    const holds = truthy(evaluate(args[1], item, meter));
    if (op === 'all' && !holds) return false;
    if (op !== 'all' && holds) return op === 'some';
  }
  return op !== 'some';
}
