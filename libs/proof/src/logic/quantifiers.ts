import { ANY, arraySet, booleanDomain, domain, EMPTY, type ArraySet, type Domain } from './domain';
import { join, joinAll, sameDomain, widen } from './domain-join';
import { constDomain } from './domain-values';
import {
  itemScope,
  mergeReads,
  noteUndecided,
  operand,
  reduceScope,
  type Context,
  type Evaluated,
  type Operation,
} from './eval-state';
import { mayBe } from './kinds';
import { outcomes, type Outcomes } from './number-set';
import { truthiness } from './truthiness';

// all / some / none / map / filter / reduce: the body runs once per item, with `var` reading the
// item; abstractly it runs once over the domain of every item.

/** `reduce` folds are followed step by step up to this many items, then widened to a fixpoint. */
const UNROLL = 6;
const WIDENINGS = 6;
const NO_BODY: Evaluated = { domain: EMPTY, reads: [] };

interface Source {
  readonly array?: ArraySet;
  /** The operand may be something other than an array (the quantifier then has a fixed answer). */
  readonly other: boolean;
  readonly reads: readonly string[];
  readonly pointer?: string;
}

function source(op: Operation, ctx: Context): Source {
  const src = operand(op, 0, ctx);
  const d = src.domain;
  const array = mayBe(d, 'array') ? d.array : undefined;
  const other = mayBe(d, 'undefined', 'null', 'boolean', 'number', 'string', 'object');
  return { array, other, reads: src.reads, pointer: src.reads.length === 1 ? src.reads[0] : undefined };
}

/** The body over every item, or nothing when no array of the source has an item. */
function body(op: Operation, src: Source, ctx: Context): Evaluated {
  const a = src.array;
  return a !== undefined && a.maxItems > 0 ? operand(op, 1, ctx, itemScope(a.items, src.pointer)) : NO_BODY;
}

type Quantifier = 'all' | 'some' | 'none';

function quantified(name: Quantifier, src: Source, b: Outcomes): Outcomes {
  const a = src.array;
  const nonEmpty = a !== undefined && a.maxItems > 0;
  const mayBeEmpty = src.other || (a !== undefined && a.minItems === 0);
  // One domain covers every item, so `all` and `some` get the same over-approximation.
  const some = outcomes(nonEmpty && b.true, mayBeEmpty || (nonEmpty && b.false));
  return name === 'none' ? outcomes(some.false, some.true) : some;
}

/** `all`, `some`, `none` (false, false, true on an empty array or a non-array). */
export function evaluateQuantifier(name: Quantifier, op: Operation, ctx: Context): Evaluated {
  const src = source(op, ctx);
  const b = body(op, src, ctx);
  const result = quantified(name, src, truthiness(b.domain));
  const reads = mergeReads(src.reads, b.reads);
  if (result.true && result.false) {
    noteUndecided(ctx.state, [name], reads, `\`${name}\` may hold for some arrays and fail for others`);
  }
  return { domain: booleanDomain(result), reads };
}

const EMPTY_ARRAY: Domain = domain({ array: arraySet(0, 0, EMPTY), finite: [[]] });

/** `map` and `filter` ([] for a non-array). */
export function evaluateCollection(name: 'map' | 'filter', op: Operation, ctx: Context): Evaluated {
  const src = source(op, ctx);
  const a = src.array;
  const b = body(op, src, ctx);
  const parts: Domain[] = src.other ? [EMPTY_ARRAY] : [];
  if (a !== undefined) {
    const kept = truthiness(b.domain);
    const array =
      name === 'map'
        ? arraySet(a.minItems, a.maxItems, b.domain)
        : arraySet(kept.false ? 0 : a.minItems, kept.true ? a.maxItems : 0, a.items);
    if (array !== undefined) parts.push(domain({ array }));
  }
  return { domain: joinAll(parts), reads: mergeReads(src.reads, b.reads) };
}

function reduceData(item: Domain, accumulator: Domain): Domain {
  return domain({
    object: {
      properties: new Map([
        ['current', item],
        ['accumulator', accumulator],
      ]),
    },
  });
}

/** `reduce`: the accumulator after each possible number of items, the tail widened to a fixpoint. */
export function evaluateReduce(op: Operation, ctx: Context): Evaluated {
  const src = source(op, ctx);
  // json-logic-js tests the operand as written: a missing initial value is null.
  const initial = op.values[2] !== undefined ? operand(op, 2, ctx) : { domain: constDomain(null), reads: [] };
  const a = src.array;
  const results: Domain[] = src.other || (a !== undefined && a.minItems === 0) ? [initial.domain] : [];
  const reads: (readonly string[])[] = [src.reads, initial.reads];
  if (a !== undefined && a.maxItems > 0) {
    const step = (acc: Domain): Domain => {
      const next = operand(op, 1, ctx, reduceScope(reduceData(a.items, acc), src.pointer));
      if (reads.length < 4) reads.push(next.reads);
      return next.domain;
    };
    let acc = initial.domain;
    for (let n = 1; n <= Math.min(a.maxItems, UNROLL); n += 1) {
      acc = step(acc);
      if (n >= a.minItems) results.push(acc);
    }
    if (a.maxItems > UNROLL) results.push(fixpoint(acc, step));
  }
  return { domain: joinAll(results), reads: mergeReads(...reads) };
}

/** A domain holding `start` and closed under `step` (ANY when widening does not settle). */
function fixpoint(start: Domain, step: (acc: Domain) => Domain): Domain {
  let current = start;
  for (let i = 0; i < WIDENINGS; i += 1) {
    const next = join(current, step(current));
    if (sameDomain(next, current)) return current;
    current = widen(current, next);
  }
  return ANY;
}
