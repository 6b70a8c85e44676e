import { ABSENT, booleanDomain, domain, EMPTY, type Domain } from './domain';
import { looseEqual, relational, strictEqual } from './compare';
import { toNumberSet, parseFloatSet, type RiskSink } from './conversions';
import { add, divide, extremum, multiply, negate, remainder, subtract } from './number-arith';
import {
  eitherOutcome,
  negateOutcome,
  NEITHER,
  outcomes,
  pointSet,
  type NumberSet,
  type Outcomes,
} from './number-set';
import { joinAll } from './domain-join';
import { truthiness } from './truthiness';
import { catTransfer, inTransfer, mergeTransfer, substrTransfer } from './text-operators';
import { kindsOf } from './kinds';

// Transfer functions of the operators that evaluate every operand first: the result set of the
// operator over operand sets, used when the operands are not short lists (see enumerate.ts).

/** Counts items a transfer function allocates (texts it joins) against the analysis's budget. */
export type AllocationSink = (items: number) => void;

type Transfer = (args: readonly Domain[], risk: RiskSink, allocate: AllocationSink) => Domain;

const arg = (args: readonly Domain[], i: number): Domain => args[i] ?? ABSENT;
const numbers = (set: NumberSet): Domain =>
  set.range === undefined && !set.nan ? EMPTY : domain({ number: set });

/** The operators whose result is a boolean: an undecided one is worth a finding. */
export const BOOLEAN_OPERATORS = new Set(['==', '===', '!=', '!==', '!', '!!', '>', '>=', '<', '<=', 'in']);

function chain(first: Outcomes, second: Outcomes): Outcomes {
  // (a < b) && (b < c): short-circuit, the operands independent (an over-approximation).
  return outcomes(first.true && second.true, first.false || (first.true && second.false));
}

function between(orEqual: boolean): Transfer {
  return (args, risk) => {
    const [a, b] = [arg(args, 0), arg(args, 1)];
    const binary = relational(a, b, orEqual, risk);
    if (args.length < 3) return booleanDomain(binary);
    const c = arg(args, 2);
    const parts: Outcomes[] = [];
    if (c.absent) parts.push(binary);
    const defined = { ...c, absent: false };
    if (kindsOf(defined).size > 0) parts.push(chain(binary, relational(b, defined, orEqual, risk)));
    return booleanDomain(parts.reduce(eitherOutcome, NEITHER));
  };
}

function sum(args: readonly Domain[], risk: RiskSink): Domain {
  return numbers(args.reduce<NumberSet>((acc, a) => add(acc, parseFloatSet(a, risk)), pointSet(0)));
}

function product(args: readonly Domain[], risk: RiskSink): Domain {
  if (args.length === 0) {
    risk('`*` without operands throws');
    return EMPTY;
  }
  if (args.length === 1) return args[0];
  const [first, ...rest] = args.map((a) => parseFloatSet(a, risk));
  return numbers(rest.reduce(multiply, first));
}

function minus(args: readonly Domain[], risk: RiskSink): Domain {
  const a = toNumberSet(arg(args, 0), risk);
  const b = arg(args, 1);
  const parts: NumberSet[] = [];
  if (b.absent) parts.push(negate(a));
  const defined = { ...b, absent: false };
  if (kindsOf(defined).size > 0) parts.push(subtract(a, toNumberSet(defined, risk)));
  return joinAll(parts.map(numbers));
}

function binaryNumeric(f: (a: NumberSet, b: NumberSet) => NumberSet): Transfer {
  return (args, risk) => numbers(f(toNumberSet(arg(args, 0), risk), toNumberSet(arg(args, 1), risk)));
}

const TRANSFERS: Readonly<Record<string, Transfer>> = {
  '==': (args, risk) => booleanDomain(looseEqual(arg(args, 0), arg(args, 1), risk)),
  '!=': (args, risk) => booleanDomain(negateOutcome(looseEqual(arg(args, 0), arg(args, 1), risk))),
  '===': (args) => booleanDomain(strictEqual(arg(args, 0), arg(args, 1))),
  '!==': (args) => booleanDomain(negateOutcome(strictEqual(arg(args, 0), arg(args, 1)))),
  '!': (args) => booleanDomain(negateOutcome(truthiness(arg(args, 0)))),
  '!!': (args) => booleanDomain(truthiness(arg(args, 0))),
  '<': between(false),
  '<=': between(true),
  '>': (args, risk) => booleanDomain(relational(arg(args, 1), arg(args, 0), false, risk)),
  '>=': (args, risk) => booleanDomain(relational(arg(args, 1), arg(args, 0), true, risk)),
  '+': sum,
  '*': product,
  '-': minus,
  '/': binaryNumeric(divide),
  '%': binaryNumeric(remainder),
  max: (args, risk) =>
    numbers(
      extremum(
        args.map((a) => toNumberSet(a, risk)),
        true,
      ),
    ),
  min: (args, risk) =>
    numbers(
      extremum(
        args.map((a) => toNumberSet(a, risk)),
        false,
      ),
    ),
  merge: (args) => mergeTransfer(args),
  in: (args, risk) => booleanDomain(inTransfer(arg(args, 0), arg(args, 1), risk)),
  cat: catTransfer,
  substr: substrTransfer,
};

/** The operators evaluated here (every operand first, then the operator). */
export function isEagerOperator(op: string): boolean {
  return Object.prototype.hasOwnProperty.call(TRANSFERS, op);
}

/** The result set of an eager operator over operand sets. */
export function transfer(
  op: string,
  args: readonly Domain[],
  risk: RiskSink,
  allocate: AllocationSink,
): Domain {
  const f = TRANSFERS[op];
  return f === undefined ? EMPTY : f(args, risk, allocate);
}
