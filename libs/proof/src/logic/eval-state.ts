import { LIMITS } from '@flex/contracts';
import type { Finding } from '../verdict';
import type { Domain } from './domain';

/** Why an analysis stopped early: too many abstract operations or allocated items, or nesting too deep. */
export class AnalysisLimitError extends Error {
  override readonly name = 'AnalysisLimitError';
  constructor(
    readonly code: 'budget' | 'depth',
    message: string,
  ) {
    super(message);
  }
}

/** The mutable bookkeeping of one `proveRule` call. */
export interface EvalState {
  cost: number;
  readonly budget: number;
  /** Items the analysis allocated: texts it joined, values its concrete probes created. */
  items: number;
  readonly itemBudget: number;
  /** Why some evaluation may throw at runtime (the constraint then fails: never `proven`). */
  readonly throwReasons: string[];
  /** Operators whose outcome could not be decided, keyed to keep one finding per place. */
  readonly undecided: Map<string, Finding>;
}

export const MAX_EVAL_DEPTH = 96;
const MAX_READS = 6;
const MAX_FINDINGS = 12;

export function newState(budget: number, itemBudget: number = LIMITS.jsonLogicMaxItems): EvalState {
  return { cost: 0, budget, items: 0, itemBudget, throwReasons: [], undecided: new Map() };
}

/** Counts `n` abstract operations against the budget. */
export function charge(state: EvalState, n = 1): void {
  state.cost += n;
  if (state.cost > state.budget) {
    const message = `the analysis needs more than ${state.budget} abstract operations`;
    throw new AnalysisLimitError('budget', message);
  }
}

/**
 * Counts `n` allocated items against the item budget: the steps alone do not bound memory, since
 * one step can join long texts or run an operator on listed values.
 */
export function allocate(state: EvalState, n: number): void {
  state.items += n;
  if (state.items > state.itemBudget) {
    throw new AnalysisLimitError('budget', `the analysis allocates more than ${state.itemBudget} items`);
  }
}

export function noteRisk(state: EvalState, reason: string): void {
  const known = state.throwReasons.includes(reason);
  if (!known && state.throwReasons.length < MAX_FINDINGS) state.throwReasons.push(reason);
}

/** Records an operator that may go either way, at the first data pointer it reads. */
export function noteUndecided(
  state: EvalState,
  keywords: readonly string[],
  reads: readonly string[],
  message: string,
): void {
  const pointer = reads[0] ?? '';
  const key = `${pointer} ${keywords.join(' ')}`;
  if (state.undecided.has(key) || state.undecided.size >= MAX_FINDINGS) return;
  const text = reads.length > 1 ? `${message} (reads ${reads.join(', ')})` : message;
  state.undecided.set(key, { pointer, keywords: [...keywords], message: text });
}

/** Where `var` reads from: the data, and the JSON pointer of each path (undefined: no data path). */
export interface Scope {
  readonly data: Domain;
  readonly pointer: (segments: readonly string[]) => string | undefined;
}

/** A value with the data pointers it was computed from. */
export interface Evaluated {
  readonly domain: Domain;
  readonly reads: readonly string[];
}

/** An operation under evaluation: its operands as written, the scope they read, its nesting depth. */
export interface Operation {
  readonly values: readonly unknown[];
  readonly scope: Scope;
  readonly depth: number;
}

export function mergeReads(...lists: readonly (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].slice(0, MAX_READS);
}

function pointerOf(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function rootScope(data: Domain): Scope {
  return { data, pointer: pointerOf };
}

/** The scope of a quantifier's body: each item of the array read at `arrayPointer`. */
export function itemScope(data: Domain, arrayPointer: string | undefined): Scope {
  const pointer = (segments: readonly string[]) =>
    arrayPointer === undefined ? undefined : `${arrayPointer}/*${pointerOf(segments)}`;
  return { data, pointer };
}

/** The scope of `reduce`'s body: `current` is an item of the array, `accumulator` no data path. */
export function reduceScope(data: Domain, arrayPointer: string | undefined): Scope {
  const item = itemScope(data, arrayPointer);
  const pointer = (segments: readonly string[]) =>
    segments[0] === 'current' ? item.pointer(segments.slice(1)) : undefined;
  return { data, pointer };
}

/** Evaluates a rule node in a scope (passed around to keep the operator files free of cycles). */
export type Evaluate = (node: unknown, scope: Scope, depth: number) => Evaluated;

export interface Context {
  readonly state: EvalState;
  readonly evaluate: Evaluate;
}

/** Evaluates operand `i` of the operation (a missing operand is `undefined`). */
export function operand(op: Operation, i: number, ctx: Context, scope: Scope = op.scope): Evaluated {
  return ctx.evaluate(op.values[i], scope, op.depth + 1);
}
