import type { PlanGraph, PlanNode, TaskEnvelope } from '@flex/contracts';
import { defaultFacetCompiler } from '@flex/facets';
import { upstreamOf } from '@flex/run-model';
import type { Finding, Verdict } from '../verdict';
import { chooseCount, contractLength } from './array-counts';
import { callerProperties } from './caller-schema';
import { keyOfFacet } from './output-sources';

export interface InputObligation {
  readonly pointer: string;
  readonly verdict: Verdict;
  readonly nodeIds: readonly string[];
  readonly findings: readonly Finding[];
}

/**
 * A concatenation can hold more items than the facet allows per call; every agent node reading it
 * downstream must accept that many, or it refuses its inputs at run time (a QA node whose input
 * contract holds at most 5 variants cannot review 7). Refuted with the reader and the bound.
 */
export function concatReaders(
  plan: PlanGraph,
  envelope: TaskEnvelope,
  requested?: number,
): InputObligation[] {
  const out: InputObligation[] = [];
  const { properties } = callerProperties(envelope);
  for (const merge of plan.nodes) {
    for (const [facet, strategy] of Object.entries(merge.merge ?? {})) {
      if (strategy !== 'concat') continue;
      const key = keyOfFacet(facet);
      const count = chooseCount(contractLength(envelope, key, properties[key]), requested);
      const max = inputMaxItems(facet);
      if (count === undefined || max === undefined || count <= max) continue;
      for (const reader of readersOf(plan, merge, facet)) {
        const message = `${reader.id} reads ${count} ${facet} from ${merge.id}, but its input contract holds at most ${max}`;
        const pointer = `/${key}`;
        out.push({
          pointer,
          verdict: 'refuted',
          nodeIds: [reader.id, merge.id],
          findings: [{ pointer, keywords: ['maxItems'], message }],
        });
      }
    }
  }
  return out;
}

function inputMaxItems(facet: string): number | undefined {
  try {
    const schema = defaultFacetCompiler().compile([facet], 'input').schema.properties as Record<
      string,
      { maxItems?: unknown }
    >;
    const max = schema[keyOfFacet(facet)]?.maxItems;
    return typeof max === 'number' ? max : undefined;
  } catch {
    return undefined; // an output-only facet is never an input
  }
}

/** Agent nodes downstream of `from` that declare `facet` as an input. */
function readersOf(plan: PlanGraph, from: PlanNode, facet: string): PlanNode[] {
  const below = new Set<string>();
  let frontier = [from.id];
  while (frontier.length) {
    const next = plan.nodes.filter(
      (n) => !below.has(n.id) && upstreamOf(plan, n.id).some((u) => frontier.includes(u)),
    );
    for (const n of next) below.add(n.id);
    frontier = next.map((n) => n.id);
  }
  return plan.nodes.filter(
    (n) => below.has(n.id) && n.capabilityId && n.kind !== 'fallback' && n.inputFacets.includes(facet),
  );
}
