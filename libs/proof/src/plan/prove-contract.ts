import { type ConstraintSpec, type PlanGraph, type TaskEnvelope } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { constraintIdOf } from '@flex/logic';
import { proveRule } from '../logic';
import { allOf, type Finding, type Verdict } from '../verdict';
import { chooseCount, contractLength, requestedCount, splitCount } from './array-counts';
import { asksForCount, wellFormed } from './bind-contract';
import {
  callerProperties,
  countedFragment,
  laneFragment,
  laneUnprovable,
  portableFragment,
  type SchemaObject,
} from './caller-schema';
import { dataDomain } from './data-domain';
import { concatReaders } from './input-obligations';
import { facetForKey, finalSources, type Source } from './output-sources';
import { proveAgainst, proveValue } from './property-proof';

/** One thing the plan must guarantee: a property of the caller's schema, a constraint, the root object. */
export interface Obligation {
  readonly kind: 'coverage' | 'schema' | 'input' | 'constraint' | 'root';
  /** hard obligations decide the verdict; soft ones (soft constraints) only warn. */
  readonly level: 'hard' | 'soft';
  /** JSON pointer into the final output (`/copyVariants`), or `''` for the whole output. */
  readonly pointer: string;
  readonly verdict: Verdict;
  /** The nodes whose contracts the verdict rests on (the producers). */
  readonly nodeIds: readonly string[];
  readonly findings: readonly Finding[];
  readonly constraintId?: string;
}

/** The proof of a plan against its envelope's output contract (DESIGN §8: three-valued, sound). */
export interface ContractProof {
  readonly verdict: Verdict;
  readonly obligations: readonly Obligation[];
}

interface Context {
  readonly plan: PlanGraph;
  readonly envelope: TaskEnvelope;
  readonly values: Readonly<Record<string, unknown>>;
  readonly requested?: number;
}

/**
 * `proven`: every output the plan's nodes can produce while honouring their contracts (facet ∧
 * binding, which the executor enforces) composes into an output valid against the caller's schema
 * and every hard constraint. `refuted`: no such output exists (the obligation says where and why).
 * `unknown`: not decidable here; runtime checks and repair decide.
 */
export function proveContract(plan: PlanGraph, envelope: TaskEnvelope): ContractProof {
  if (!wellFormed(plan)) {
    const message =
      'the plan graph is malformed (duplicate ids, dangling edges or a cycle); nothing can be proven about it';
    return { verdict: 'refuted', obligations: [root('refuted', [{ pointer: '', keywords: [], message }])] };
  }
  const values = envelopeFacets(envelope).values;
  const ctx: Context = { plan, envelope, values, requested: requestedCount(envelope, values) };
  const { properties, required } = callerProperties(envelope);
  const keys = [...new Set([...Object.keys(properties), ...required])].sort();
  const constraints = envelope.outputContract.constraints ?? [];
  // What constraints read is the same for all of them: derive it once.
  const data = constraints.some((c) => c.level !== 'informational')
    ? dataDomain(plan, envelope, values, ctx.requested)
    : undefined;
  const obligations: Obligation[] = [
    ...rootObligations(ctx, keys),
    ...keys.map((key) => propertyObligation(ctx, key, properties[key], required.includes(key))),
    ...concatReaders(plan, envelope, ctx.requested).map((o) => ({
      kind: 'input' as const,
      level: 'hard' as const,
      ...o,
    })),
    ...(data ? constraints.flatMap((c, i) => constraintObligation(c, i, data)) : []),
  ];
  return { verdict: allOf(obligations.filter((o) => o.level === 'hard').map((o) => o.verdict)), obligations };
}

function propertyObligation(ctx: Context, key: string, raw: unknown, required: boolean): Obligation {
  const pointer = `/${escape(key)}`;
  const sources = finalSources(ctx.plan, key, ctx.values);
  if (sources.length === 0) {
    const message = `no node of the plan produces ${key} and the envelope does not supply it`;
    return required
      ? {
          kind: 'coverage',
          level: 'hard',
          pointer,
          verdict: 'refuted',
          nodeIds: [],
          findings: [{ pointer, keywords: ['required'], message }],
        }
      : { kind: 'coverage', level: 'hard', pointer, verdict: 'proven', nodeIds: [], findings: [] };
  }
  const fragment = portableFragment(ctx.envelope, raw);
  const unportable = fragment === undefined && raw !== undefined && raw !== true && !isEmptyObject(raw);
  const count = chooseCount(contractLength(ctx.envelope, key, raw), ctx.requested);
  const results = sources.map((s) => proveSource(ctx, s, key, pointer, fragment, unportable, count));
  return {
    kind: 'schema',
    level: 'hard',
    pointer,
    verdict: allOf(results.map((r) => r.verdict)),
    nodeIds: [...new Set(results.flatMap((r) => r.nodeIds))],
    findings: results.flatMap((r) => r.findings),
  };
}

type Partial = { verdict: Verdict; nodeIds: string[]; findings: Finding[] };

function proveSource(
  ctx: Context,
  source: Source,
  key: string,
  pointer: string,
  fragment: SchemaObject | undefined,
  unportable: boolean,
  count?: number,
): Partial {
  if (unportable) {
    const message = `the caller's schema for ${key} refers outside its definitions; it is checked at run time`;
    return { verdict: 'unknown', nodeIds: [], findings: [{ pointer, keywords: ['$ref'], message }] };
  }
  switch (source.kind) {
    case 'envelope':
      return { ...proveValue(source.value, fragment, pointer), nodeIds: [] };
    case 'untraced': {
      const message = `${source.node.id} passes ${key} through, but no upstream node provides it`;
      return {
        verdict: 'unknown',
        nodeIds: [source.node.id],
        findings: [{ pointer, keywords: [], message }],
      };
    }
    case 'node': {
      const facet = facetForKey(source.node, key);
      const expected = countedFragment(
        fragment,
        facet !== undefined && asksForCount(source.node, facet, count) ? count : undefined,
      );
      return { ...proveAgainst(source.node, key, pointer, fragment, expected), nodeIds: [source.node.id] };
    }
    case 'concat':
      return proveConcat(ctx, source, key, pointer, fragment);
  }
}

function proveConcat(
  ctx: Context,
  source: Extract<Source, { kind: 'concat' }>,
  key: string,
  pointer: string,
  fragment: SchemaObject | undefined,
): Partial {
  const count = chooseCount(contractLength(ctx.envelope, key, fragment), ctx.requested);
  const nodeIds = [source.node.id];
  if (count === undefined) {
    const message = `${source.node.id} concatenates ${source.lanes.length} lanes of ${key} but the contract fixes no count`;
    return {
      verdict: 'unknown',
      nodeIds,
      findings: [{ pointer, keywords: ['minItems', 'maxItems'], message }],
    };
  }
  const shares = splitCount(count, source.lanes.length);
  const parts: Partial[] = source.lanes.flatMap((lane, i) =>
    lane.map((s): Partial => {
      if (s.kind !== 'node')
        return {
          verdict: 'unknown',
          nodeIds: [],
          findings: [{ pointer, keywords: [], message: `lane ${i + 1} of ${key} is not an agent node` }],
        };
      const expected = laneFragment(fragment ?? { type: 'array' }, shares[i]);
      const conflictsWith = fragment ? laneFragment(fragment, shares[i]) : undefined;
      return { ...proveAgainst(s.node, key, pointer, conflictsWith, expected), nodeIds: [s.node.id] };
    }),
  );
  const lost = fragment ? laneUnprovable(fragment) : [];
  if (lost.length) {
    const message = `${lost.join(', ')} on ${key} hold per lane only; the concatenation is checked at run time`;
    parts.push({ verdict: 'unknown', nodeIds, findings: [{ pointer, keywords: lost, message }] });
  }
  return {
    verdict: allOf(parts.map((p) => p.verdict)),
    nodeIds: [...nodeIds, ...parts.flatMap((p) => p.nodeIds)],
    findings: parts.flatMap((p) => p.findings),
  };
}

function constraintObligation(
  spec: ConstraintSpec,
  index: number,
  data: ReturnType<typeof dataDomain>,
): Obligation[] {
  if (spec.level === 'informational') return [];
  const constraintId = constraintIdOf(spec, index);
  const { domain, nodeIds } = data;
  const result = proveRule(spec.expr, domain);
  return [
    {
      kind: 'constraint',
      level: spec.level,
      pointer: '',
      verdict: result.verdict,
      nodeIds,
      findings: result.findings,
      constraintId,
    },
  ];
}

// Root keywords the composition decides by itself (it emits exactly the declared, produced keys).
const ROOT_HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'title',
  'description',
  '$schema',
  '$id',
  '$comment',
  'definitions',
  '$defs',
  'minProperties',
  'maxProperties',
  'examples',
  'default',
]);

function rootObligations(ctx: Context, keys: readonly string[]): Obligation[] {
  const schema = ctx.envelope.outputContract.schema as Record<string, unknown>;
  const out: Obligation[] = [];
  const type = schema.type;
  if (type !== undefined && !(type === 'object' || (Array.isArray(type) && type.includes('object')))) {
    const message = 'the final output is an object, but the caller schema does not allow one';
    out.push(root('refuted', [{ pointer: '', keywords: ['type'], message }]));
  }
  const present = keys.filter((k) => finalSources(ctx.plan, k, ctx.values).length > 0).length;
  const min = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  const max = typeof schema.maxProperties === 'number' ? schema.maxProperties : Infinity;
  if (present < min || present > max) {
    const message = `the plan fills ${present} propert${present === 1 ? 'y' : 'ies'}; the caller asks for ${min}..${max}`;
    out.push(
      root('refuted', [
        { pointer: '', keywords: present < min ? ['minProperties'] : ['maxProperties'], message },
      ]),
    );
  }
  const other = Object.keys(schema)
    .filter((k) => !ROOT_HANDLED.has(k))
    .sort();
  if (other.length)
    out.push(
      root('unknown', [
        {
          pointer: '',
          keywords: other,
          message: `root keywords ${other.join(', ')} are checked at run time`,
        },
      ]),
    );
  return out;
}

const root = (verdict: Verdict, findings: Finding[]): Obligation => ({
  kind: 'root',
  level: 'hard',
  pointer: '',
  verdict,
  nodeIds: [],
  findings,
});
const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const isEmptyObject = (v: unknown) =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
