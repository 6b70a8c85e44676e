import { ANY, arraySet, domain, EMPTY, FINITE_LIMIT, withAbsent, type Domain } from './domain';
import { join, joinAll, listedValues } from './domain-join';
import { constDomain, fromValues } from './domain-values';
import { combinations, enumerateOperator } from './enumerate';
import {
  allocate,
  AnalysisLimitError,
  charge,
  MAX_EVAL_DEPTH,
  mergeReads,
  noteRisk,
  noteUndecided,
  operand,
  type Context,
  type EvalState,
  type Evaluated,
  type Operation,
  type Scope,
} from './eval-state';
import { evaluateMissing, evaluateMissingSome } from './missing';
import { BOOLEAN_OPERATORS, isEagerOperator, transfer } from './operators';
import { evaluateCollection, evaluateQuantifier, evaluateReduce } from './quantifiers';
import { falsyPart, truthiness, truthyPart } from './truthiness';
import { lookup, varResult } from './var-lookup';

// The abstract interpreter: json-logic-js's `apply`, one case per operator, over domains.

const NULL = constDomain(null);
const NOTHING_READ: Evaluated = { domain: NULL, reads: [] };

/** A JSONLogic operation: an object with exactly one key (anything else is a literal). */
export function operatorOf(node: unknown): string | undefined {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  return keys.length === 1 ? keys[0] : undefined;
}

/** The result set of `rule` over data in `scope`. Throws AnalysisLimitError past the budget or depth. */
export function analyse(rule: unknown, scope: Scope, state: EvalState): Evaluated {
  const ctx: Context = { state, evaluate: (node, s, depth) => evaluateNode(node, s, depth, ctx) };
  return ctx.evaluate(rule, scope, 0);
}

function evaluateNode(node: unknown, scope: Scope, depth: number, ctx: Context): Evaluated {
  charge(ctx.state);
  if (depth > MAX_EVAL_DEPTH) {
    throw new AnalysisLimitError('depth', `the rule nests deeper than ${MAX_EVAL_DEPTH} levels`);
  }
  if (Array.isArray(node)) return arrayLiteral({ values: node, scope, depth }, ctx);
  const name = operatorOf(node);
  if (name === undefined) return { domain: constDomain(node), reads: [] };
  const raw = (node as Record<string, unknown>)[name];
  const op: Operation = { values: Array.isArray(raw) ? raw : [raw], scope, depth };
  switch (name) {
    case 'var':
      return evaluateVar(op, ctx);
    case 'missing':
      return evaluateMissing(op, ctx);
    case 'missing_some':
      return evaluateMissingSome(op, ctx);
    case 'if':
    case '?:':
      return evaluateIf(op, ctx);
    case 'and':
    case 'or':
      return evaluateConnective(name, op, ctx);
    case 'all':
    case 'some':
    case 'none':
      return evaluateQuantifier(name, op, ctx);
    case 'map':
    case 'filter':
      return evaluateCollection(name, op, ctx);
    case 'reduce':
      return evaluateReduce(op, ctx);
    default:
      return isEagerOperator(name) ? evaluateEager(name, op, ctx) : unknownOperator(name, ctx);
  }
}

function unknownOperator(name: string, ctx: Context): Evaluated {
  noteRisk(ctx.state, `operator \`${name}\` is not analysed statically`);
  noteUndecided(ctx.state, [name], [], `operator \`${name}\` is left to the runtime check`);
  return { domain: ANY, reads: [] };
}

/** A literal array evaluates each item: exact while the combinations stay few. */
function arrayLiteral(op: Operation, ctx: Context): Evaluated {
  const items = op.values.map((_, i) => operand(op, i, ctx));
  const reads = mergeReads(...items.map((i) => i.reads));
  const lists = items.map((i) => {
    const listed = listedValues(i.domain);
    return listed && (i.domain.absent ? [...listed, undefined] : listed);
  });
  const count = lists.reduce((n, l) => n * (l?.length ?? Infinity), 1);
  if (count <= FINITE_LIMIT) return { domain: fromValues(combinations(lists.map((l) => l ?? []))), reads };
  const array = arraySet(items.length, items.length, joinAll(items.map((i) => i.domain)));
  return { domain: array === undefined ? EMPTY : domain({ array }), reads };
}

function pointerOf(path: unknown, parent: Domain, scope: Scope): string | undefined {
  const segments = path === undefined || path === null || path === '' ? [] : String(path).split('.');
  // `xs.length` points at the array or string `xs` itself.
  const last = segments[segments.length - 1];
  const measured = parent.array !== undefined || parent.string !== undefined;
  return scope.pointer(last === 'length' && measured ? segments.slice(0, -1) : segments);
}

function evaluateVar(op: Operation, ctx: Context): Evaluated {
  const path = op.values[0];
  if (operatorOf(path) !== undefined || Array.isArray(path)) return unknownOperator('var', ctx);
  const fallback = op.values.length > 1 ? operand(op, 1, ctx) : NOTHING_READ;
  // An undefined default is replaced by null.
  const otherwise = fallback.domain.absent ? join(withAbsent(fallback.domain, false), NULL) : fallback.domain;
  const found = lookup(op.scope.data, path);
  const pointer = pointerOf(path, found.parent, op.scope);
  const reads = mergeReads(pointer === undefined ? [] : [pointer], fallback.reads);
  return { domain: varResult(found, otherwise), reads };
}

function evaluateIf(op: Operation, ctx: Context): Evaluated {
  const results: Domain[] = [];
  const reads: (readonly string[])[] = [];
  let i = 0;
  for (; i < op.values.length - 1; i += 2) {
    const condition = operand(op, i, ctx);
    const t = truthiness(condition.domain);
    reads.push(condition.reads);
    if (t.true && t.false) {
      noteUndecided(ctx.state, ['if'], condition.reads, 'an `if` condition may be true or false');
    }
    if (t.true) {
      const branch = operand(op, i + 1, ctx);
      results.push(branch.domain);
      reads.push(branch.reads);
    }
    if (!t.false) return { domain: joinAll(results), reads: mergeReads(...reads) };
  }
  const last = op.values.length === i + 1 ? operand(op, i, ctx) : NOTHING_READ;
  return { domain: joinAll([...results, last.domain]), reads: mergeReads(...reads, last.reads) };
}

function evaluateConnective(name: 'and' | 'or', op: Operation, ctx: Context): Evaluated {
  if (op.values.length === 0) return { domain: withAbsent(EMPTY), reads: [] };
  const results: Domain[] = [];
  const reads: (readonly string[])[] = [];
  for (let i = 0; i < op.values.length; i += 1) {
    const value = operand(op, i, ctx);
    reads.push(value.reads);
    if (i === op.values.length - 1) {
      results.push(value.domain);
      break;
    }
    // `and` returns the first falsy operand, `or` the first truthy one; the rest run only past it.
    const t = truthiness(value.domain);
    results.push(name === 'and' ? falsyPart(value.domain) : truthyPart(value.domain));
    if (name === 'and' ? !t.true : !t.false) break;
  }
  return { domain: joinAll(results), reads: mergeReads(...reads) };
}

function innerOperators(values: readonly unknown[]): string[] {
  return [...new Set(values.map(operatorOf).filter((o): o is string => o !== undefined && o !== 'var'))];
}

/** Operators that evaluate every operand first: exact on short lists, transfer functions otherwise. */
function evaluateEager(name: string, op: Operation, ctx: Context): Evaluated {
  const args = op.values.map((_, i) => operand(op, i, ctx));
  const domains = args.map((a) => a.domain);
  const reads = mergeReads(...args.map((a) => a.reads));
  charge(ctx.state, domains.length);
  const risk = (why: string) => noteRisk(ctx.state, why);
  const allocated = (items: number) => allocate(ctx.state, items);
  const result = enumerateOperator(name, domains, ctx.state) ?? transfer(name, domains, risk, allocated);
  const t = truthiness(result);
  if (BOOLEAN_OPERATORS.has(name) && t.true && t.false) {
    const message = `\`${name}\` may be true or false for the values the schemas admit`;
    noteUndecided(ctx.state, [name, ...innerOperators(op.values)], reads, message);
  }
  return { domain: result, reads };
}
