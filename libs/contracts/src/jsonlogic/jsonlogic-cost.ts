import { LIMITS } from '../shared/limits';
import { isPlainObject } from '../shared/plain-object';
import type { JsonLogicProblem } from './jsonlogic-rules';

/**
 * The static half of the evaluation budget. json-logic-js iterations multiply: `map` over a
 * literal array of 40 items whose body maps over another 40, three levels down, evaluates 2.5
 * million nodes from a 358-byte rule. Before a run, a rule is refused when it nests iterations
 * deeper than {@link LIMITS.jsonLogicMaxIterationDepth}, or when its estimated cost (every
 * branch counted, literal arrays at their length, every data array at one item) is over the
 * run-time budget ({@link LIMITS.jsonLogicMaxOperations}, {@link LIMITS.jsonLogicMaxItems}):
 * such a rule runs out even over data whose arrays hold one item each, unless a branch is skipped.
 * What the data's sizes add is for the run-time budget to stop.
 */

const ITERATIONS = new Set(['map', 'filter', 'reduce', 'all', 'some', 'none']);
const TEXT_OUTPUTS = new Set(['cat', 'substr']);
const DATA_READS = new Set(['var', 'missing', 'missing_some']);

/** What evaluating a node costs (operations, allocated items), and the size of its value. */
interface Estimate {
  ops: number;
  items: number;
  /** Items of an array value, characters of a text value; 1 when it depends on the data. */
  size: number;
}

interface CostState {
  problems: JsonLogicProblem[];
  /** The deepest node found over the budget: where the product crossed it. */
  overBudget?: { path: PropertyKey[]; estimate: Estimate };
}

/** Cost problems of a rule that already passed the shape checks (allowlist, depth, size). */
export function jsonLogicCostProblems(rule: unknown): JsonLogicProblem[] {
  const state: CostState = { problems: [] };
  estimate(rule, [], 0, state);
  if (state.overBudget) state.problems.push(costProblem(state.overBudget.path, state.overBudget.estimate));
  return state.problems;
}

function costProblem(path: PropertyKey[], e: Estimate): JsonLogicProblem {
  const ops = LIMITS.jsonLogicMaxOperations;
  const items = LIMITS.jsonLogicMaxItems;
  return {
    path,
    code: 'jsonlogic_too_costly',
    message:
      `evaluating this rule takes about ${Math.round(e.ops)} operations and ${Math.round(e.items)} ` +
      `allocated items (every branch counted, each data array as one item: nested iterations ` +
      `multiply their arrays), over the evaluation budget of ${ops} operations and ${items} items`,
    hint: 'iterate over data rather than literal arrays, or nest fewer iterations',
  };
}

function estimate(node: unknown, path: PropertyKey[], loops: number, state: CostState): Estimate {
  const e = estimateNode(node, path, loops, state);
  const over = e.ops > LIMITS.jsonLogicMaxOperations || e.items > LIMITS.jsonLogicMaxItems;
  // An operation is named by its operator, as the shape checks name it.
  const at = isPlainObject(node) ? [...path, ...Object.keys(node).slice(0, 1)] : path;
  if (over && state.overBudget === undefined) state.overBudget = { path: at, estimate: e };
  return e;
}

function estimateNode(node: unknown, path: PropertyKey[], loops: number, state: CostState): Estimate {
  if (typeof node === 'string') return { ops: 1, items: 0, size: node.length };
  if (Array.isArray(node)) {
    const total = sum(node.map((child, i) => estimate(child, [...path, i], loops, state)));
    return { ops: 1 + total.ops, items: node.length + total.items, size: node.length };
  }
  if (!isPlainObject(node)) return { ops: 1, items: 0, size: 1 };
  const [op] = Object.keys(node);
  const raw = node[op];
  const args = Array.isArray(raw) ? raw : [raw];
  const at = (i: number): PropertyKey[] => (Array.isArray(raw) ? [...path, op, i] : [...path, op]);
  if (ITERATIONS.has(op)) return iteration(op, args, at, [...path, op], loops, state);
  const parts = args.map((arg, i) => estimate(arg, at(i), loops, state));
  const total = sum(parts);
  // What the data holds is unknown: one item, as for every data array; `missing` lists keys.
  if (DATA_READS.has(op)) {
    const keys = op === 'missing' ? args.length : op === 'missing_some' ? (parts[1]?.size ?? 1) : 1;
    return { ops: 1 + total.ops, items: total.items + (op === 'var' ? 0 : keys), size: keys };
  }
  if (op === 'merge') {
    const size = parts.reduce((n, p) => n + p.size, 0);
    return { ops: 1 + total.ops, items: total.items + size, size };
  }
  if (TEXT_OUTPUTS.has(op)) {
    const size = op === 'cat' ? parts.reduce((n, p) => n + p.size, 0) : (parts[0]?.size ?? 0);
    return { ops: 1 + total.ops, items: total.items + size, size };
  }
  const size = Math.max(1, ...parts.map((p) => p.size));
  return { ops: 1 + total.ops, items: total.items, size };
}

function iteration(
  op: string,
  args: unknown[],
  at: (i: number) => PropertyKey[],
  opPath: PropertyKey[],
  loops: number,
  state: CostState,
): Estimate {
  if (loops >= LIMITS.jsonLogicMaxIterationDepth) {
    state.problems.push({
      path: opPath,
      code: 'jsonlogic_iteration_too_deep',
      message:
        `\`${op}\` is the ${loops + 1}th iteration nested in another's body; at most ` +
        `${LIMITS.jsonLogicMaxIterationDepth} may nest (map, filter, reduce, all, some, none)`,
      hint: 'each nested iteration multiplies the cost by the size of its array',
    });
  }
  const source = estimate(args[0], at(0), loops, state);
  const body = estimate(args[1], at(1), loops + 1, state);
  const initial = op === 'reduce' && args[2] !== undefined ? estimate(args[2], at(2), loops, state) : none();
  const n = source.size;
  const created = op === 'map' || op === 'filter' || op === 'reduce' ? n : 0;
  return {
    ops: 1 + source.ops + initial.ops + n * body.ops,
    items: source.items + initial.items + created + n * body.items,
    size: op === 'map' || op === 'filter' ? n : 1,
  };
}

const none = (): Estimate => ({ ops: 0, items: 0, size: 0 });

function sum(parts: readonly Estimate[]): Estimate {
  return parts.reduce((a, b) => ({ ops: a.ops + b.ops, items: a.items + b.items, size: 0 }), none());
}
