import { canonicalJson, type PlanGraph, type TaskEnvelope } from '@flex/contracts';
import { absentDomain, constDomain, domainOf, objectDomain, type Domain } from '../logic';
import type { JsonSchema } from '../verdict';
import { chooseCount, contractLength, splitCount } from './array-counts';
import { callerProperties, laneFragment, portableFragment } from './caller-schema';
import { facetSchemaOf } from './property-proof';
import { facetForKey, finalSources, keyOfFacet, sourceNodes, type Source } from './output-sources';

type Presence = 'always' | 'maybe' | 'never';

/**
 * What a constraint can read when the run completes: every key of the composed output and of the
 * facets the run produced, each as the set of values its producers' contracts admit (the latest
 * producer's facet ∧ binding; an envelope value as it is; nothing → absent).
 */
export function dataDomain(
  plan: PlanGraph,
  envelope: TaskEnvelope,
  values: Readonly<Record<string, unknown>>,
  requested?: number,
): { domain: Domain; nodeIds: string[] } {
  const keys = new Set<string>(Object.keys(callerProperties(envelope).properties));
  for (const node of plan.nodes) for (const f of node.outputFacets) keys.add(keyOfFacet(f));
  for (const f of Object.keys(values)) keys.add(keyOfFacet(f));
  const properties: Record<string, { domain: Domain; present: Presence }> = {};
  const nodeIds = new Set<string>();
  for (const key of [...keys].sort()) {
    const sources = finalSources(plan, key, values);
    for (const n of sourceNodes(sources)) nodeIds.add(n.id);
    properties[key] = { domain: keyDomain(envelope, key, sources, requested), present: presence(sources) };
  }
  return { domain: objectDomain(properties), nodeIds: [...nodeIds].sort() };
}

const presence = (sources: readonly Source[]): Presence => (sources.length === 0 ? 'never' : 'always');

function keyDomain(
  envelope: TaskEnvelope,
  key: string,
  sources: readonly Source[],
  requested?: number,
): Domain {
  if (sources.length === 0) return absentDomain();
  const lists = sources.map((s) => schemasOf(envelope, key, s, requested));
  if (lists.some((l) => l === undefined)) return domainOf([]);
  if (sources.length === 1 && sources[0].kind === 'envelope') return constDomain(sources[0].value);
  const distinct = new Set(lists.map((l) => canonicalJson(l)));
  // Several producers with different contracts: their common part is the facet schema alone.
  const chosen = distinct.size === 1 ? lists[0] : lists[0]?.slice(0, 1);
  return domainOf(chosen ?? []);
}

function schemasOf(
  envelope: TaskEnvelope,
  key: string,
  source: Source,
  requested?: number,
): JsonSchema[] | undefined {
  if (source.kind === 'envelope') return [{ const: source.value as never }];
  if (source.kind === 'untraced') return undefined;
  if (source.kind === 'node') {
    const facet = facetForKey(source.node, key);
    const schema = facet === undefined ? undefined : facetSchemaOf(facet);
    if (facet === undefined || schema === undefined) return undefined;
    const bound = source.node.bindings?.outputs?.[facet];
    return bound ? [schema, bound] : [schema];
  }
  return concatSchemas(envelope, key, source, requested);
}

/** A concatenation: its length is the sum of the lanes' counts, each item obeys every lane's item rules. */
function concatSchemas(
  envelope: TaskEnvelope,
  key: string,
  source: Extract<Source, { kind: 'concat' }>,
  requested?: number,
): JsonSchema[] | undefined {
  const raw = callerProperties(envelope).properties[key];
  const fragment = portableFragment(envelope, raw);
  const count = chooseCount(contractLength(envelope, key, raw), requested);
  const nodes = sourceNodes([source]);
  const facet = nodes[0] && facetForKey(nodes[0], key);
  const facetSchema = facet === undefined ? undefined : facetSchemaOf(facet);
  if (count === undefined || facetSchema === undefined || typeof facetSchema !== 'object') return undefined;
  const shares = splitCount(count, source.lanes.length);
  const bound = nodes.every(
    (n, i) =>
      canonicalJson(n.bindings?.outputs?.[facet ?? ''] ?? null) ===
      canonicalJson(laneFragment(fragment ?? { type: 'array' }, shares[Math.min(i, shares.length - 1)])),
  );
  if (!bound)
    return [{ type: 'array', ...(facetSchema.items !== undefined ? { items: facetSchema.items } : {}) }];
  const items = [facetSchema.items, fragment?.items].filter((s) => s !== undefined && typeof s === 'object');
  return [{ type: 'array', minItems: count, maxItems: count, items: { allOf: items } }];
}
