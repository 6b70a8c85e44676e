import type { NodeBindings, PlanGraph, PlanNode, TaskEnvelope } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { topologicalOrder } from '@flex/run-model';
import { chooseCount, contractLength, COUNT_KNOBS, requestedCount, splitCount } from './array-counts';
import {
  callerProperties,
  countedFragment,
  laneFragment,
  portableFragment,
  type SchemaObject,
} from './caller-schema';
import { facetForKey, finalSources, type Source } from './output-sources';

type Binder = Map<string, NodeBindings>;

/**
 * Push what the caller's contract fixes down into the nodes that produce it (DESIGN §8): each node
 * that can supply a top-level property of the final output gets the caller's schema for it as an
 * output binding, and the knob that parametrizes its item count (`planKnobs.variantCount`) gets the
 * contract's count. Lanes of a concatenated array each get their share. Pure and deterministic;
 * bindings a plan already carries (completed work kept across a replan) are replaced, not merged.
 */
export function bindContract(plan: PlanGraph, envelope: TaskEnvelope): PlanGraph {
  if (!wellFormed(plan)) return plan; // the validator refuses a broken graph; nothing to bind into
  const values = envelopeFacets(envelope).values;
  const requested = requestedCount(envelope, values);
  const { properties } = callerProperties(envelope);
  const binder: Binder = new Map();
  for (const key of Object.keys(properties).sort()) {
    const fragment = portableFragment(envelope, properties[key]);
    const count = chooseCount(contractLength(envelope, key, properties[key]), requested);
    for (const source of finalSources(plan, key, values)) bindSource(binder, source, key, fragment, count);
  }
  return { ...plan, nodes: plan.nodes.map((node) => withBindings(node, binder.get(node.id))) };
}

function bindSource(
  binder: Binder,
  source: Source,
  key: string,
  fragment: SchemaObject | undefined,
  count?: number,
): void {
  if (source.kind === 'node') bindNode(binder, source.node, key, fragment, count);
  if (source.kind !== 'concat') return;
  const shares = count === undefined ? undefined : splitCount(count, source.lanes.length);
  source.lanes.forEach((lane, i) => {
    const share = shares?.[i];
    const part = share === undefined ? fragment : laneFragment(fragment ?? { type: 'array' }, share);
    for (const s of lane) {
      bindSource(binder, s, key, part, share);
      if (s.kind === 'node' && shares && count !== undefined)
        markPart(
          binder,
          s.node,
          key,
          shares.slice(0, i).reduce((a, b) => a + b, 0),
          count,
        );
    }
  });
}

function bindNode(
  binder: Binder,
  node: PlanNode,
  key: string,
  fragment: SchemaObject | undefined,
  count?: number,
): void {
  const facet = facetForKey(node, key);
  if (facet === undefined) return;
  const bindings = binder.get(node.id) ?? {};
  const knob = asksForCount(node, facet, count);
  const bound = countedFragment(fragment, knob ? count : undefined);
  if (bound) bindings.outputs = { ...bindings.outputs, [facet]: { ...bound } };
  if (count !== undefined && knob) {
    const current = bindings.inputs?.[knob.facet] ?? {};
    bindings.inputs = { ...bindings.inputs, [knob.facet]: { ...current, [knob.field]: count } };
  }
  binder.set(node.id, bindings);
}

function markPart(binder: Binder, node: PlanNode, key: string, offset: number, total: number): void {
  const facet = facetForKey(node, key);
  if (facet === undefined) return;
  binder.set(node.id, { ...binder.get(node.id), part: { facet, offset, total } });
}

/** The knob through which `node` is asked for `count` items of `facet`, if it has one. */
export function asksForCount(
  node: PlanNode,
  facet: string,
  count: number | undefined,
): { facet: string; field: string } | undefined {
  const knob = COUNT_KNOBS[facet];
  return count !== undefined && knob && node.inputFacets.includes(knob.facet) ? knob : undefined;
}

function withBindings(node: PlanNode, bindings: NodeBindings | undefined): PlanNode {
  const { bindings: _previous, ...rest } = node;
  return bindings && (bindings.outputs || bindings.inputs || bindings.part) ? { ...rest, bindings } : rest;
}

/** Unique node ids, edges between existing nodes, no cycle. */
export function wellFormed(plan: PlanGraph): boolean {
  const ids = new Set(plan.nodes.map((n) => n.id));
  if (ids.size !== plan.nodes.length || !plan.edges.every((e) => ids.has(e.from) && ids.has(e.to)))
    return false;
  return topologicalOrder(plan).length === plan.nodes.length;
}
