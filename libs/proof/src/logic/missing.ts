import { ANY, arraySet, domain, type Domain } from './domain';
import { join } from './domain-join';
import { constDomain, fromValues } from './domain-values';
import { relational } from './compare';
import {
  mergeReads,
  noteRisk,
  operand,
  type Context,
  type Evaluated,
  type Operation,
  type Scope,
} from './eval-state';
import { kindsOf } from './kinds';
import { makeRange, outcomes, type Outcomes } from './number-set';
import { lookup, varResult } from './var-lookup';

// `missing` and `missing_some`: a key is missing when `var` on it gives null or ''.

const NULL = constDomain(null);

function isKey(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string' || typeof value === 'number';
}

/** May the value be null or '' (`true`), and may it be anything else (`false`)? */
function missingOutcome(v: Domain): Outcomes {
  const kinds = kindsOf(v);
  const texts = v.finite?.filter((x): x is string => typeof x === 'string');
  const emptyText = texts !== undefined ? texts.includes('') : v.string?.minLength === 0;
  const otherText = texts !== undefined ? texts.some((x) => x !== '') : (v.string?.maxLength ?? 0) > 0;
  const other = [...kinds].some((k) => k !== 'null' && k !== 'string') || otherText;
  return outcomes(kinds.has('null') || emptyText, other);
}

interface KeyStatus {
  readonly key: unknown;
  readonly status: Outcomes;
  readonly pointer?: string;
}

function statusOf(key: unknown, scope: Scope): KeyStatus {
  const segments = key === undefined || key === null || key === '' ? [] : String(key).split('.');
  const status = missingOutcome(varResult(lookup(scope.data, key), NULL));
  return { key, status, pointer: scope.pointer(segments) };
}

interface MissingKeys extends Evaluated {
  readonly min: number;
  readonly max: number;
}

/** The array of missing keys, and the pointers of the keys still undecided (else of all keys). */
function missingKeys(keys: readonly unknown[], scope: Scope): MissingKeys {
  const all = keys.map((key) => statusOf(key, scope));
  const always = all.filter((s) => !s.status.false);
  const maybe = all.filter((s) => s.status.true);
  const undecided = all.filter((s) => s.status.true && s.status.false);
  const named = undecided.length > 0 ? undecided : all;
  const reads = mergeReads(named.flatMap((s) => (s.pointer === undefined ? [] : [s.pointer])));
  const result =
    undecided.length === 0
      ? fromValues([always.map((s) => s.key)])
      : domain({ array: arraySet(always.length, maybe.length, fromValues(maybe.map((s) => s.key))) });
  return { domain: result, reads, min: always.length, max: maybe.length };
}

/** `{"missing": [keys…]}`: the keys whose value is null, '' or absent. */
export function evaluateMissing(op: Operation, ctx: Context): Evaluated {
  if (!op.values.every(isKey)) {
    noteRisk(ctx.state, '`missing` with computed keys is not analysed statically');
    return { domain: ANY, reads: [] };
  }
  return missingKeys(op.values, op.scope);
}

/** `{"missing_some": [need, [keys…]]}`: [] when at least `need` keys are present, else the missing ones. */
export function evaluateMissingSome(op: Operation, ctx: Context): Evaluated {
  const need = operand(op, 0, ctx);
  const options = op.values[1];
  if (!Array.isArray(options) || !options.every(isKey)) {
    noteRisk(ctx.state, '`missing_some` without a literal list of keys is not analysed statically');
    return { domain: ANY, reads: need.reads };
  }
  const missing = missingKeys(options, op.scope);
  const count = makeRange(options.length - missing.max, options.length - missing.min, true);
  // options.length - missing.length >= need
  const present = domain({ number: { range: count, nan: false } });
  const enough = relational(need.domain, present, true, (why) => noteRisk(ctx.state, why));
  const parts: Domain[] = [];
  if (enough.true) parts.push(fromValues([[]]));
  if (enough.false) parts.push(missing.domain);
  return { domain: parts.reduce(join, domain({})), reads: mergeReads(missing.reads, need.reads) };
}
