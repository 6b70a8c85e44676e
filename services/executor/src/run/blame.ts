import type { PlanGraph, PlanNode } from '@flex/contracts';
import { ancestorsOf, facetKey, topologicalOrder, upstreamOf, type StartedRun } from '@flex/run-model';

type PlannedRun = StartedRun & { plan: PlanGraph };

/** An output error and the top-level properties (facets) it is about. */
export interface RootedError {
  path: string;
  keyword?: string;
  message: string;
  roots: string[];
}

export type PlainError = Omit<RootedError, 'roots'>;

/**
 * The agent node each error is blamed on: for each property the error is about, the latest
 * completed node (in topological order) whose output holds it, or `producedBy` when the errors are
 * about that node's output; through an orchestrator-managed node to the node(s) it took the value from. A
 * `concat` merge hands an error on item `i` to the lane that produced item `i`, and an error on the
 * whole array to every lane. Undefined when some error has nobody to blame (no repair could fix it).
 */
export function blameErrors(
  state: PlannedRun,
  errors: readonly RootedError[],
  producedBy?: PlanNode,
): Map<string, PlainError[]> | undefined {
  const rank = new Map(topologicalOrder(state.plan).map((n, i) => [n.id, i]));
  const last = (ids: readonly string[]) => Math.max(...ids.map((id) => rank.get(id) ?? -1));
  const blamed = new Map<string, PlainError[]>();
  for (const error of errors) {
    const responsible = (root: string) => {
      const index = itemIndex(error.path, root);
      return producedBy ? through(state, producedBy, root, index, 0) : responsibleFor(state, root, index);
    };
    const groups = error.roots.map(responsible).filter((g) => g.length > 0);
    if (groups.length === 0) return undefined;
    // A constraint over several facets is blamed on whoever produced the last of them (the `enforces` rule).
    const chosen = groups.reduce((a, b) => (last(b) > last(a) ? b : a));
    for (const id of new Set(chosen)) blamed.set(id, [...(blamed.get(id) ?? []), plain(error)]);
  }
  return new Map([...blamed].sort(([a], [b]) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0)));
}

/** The agent nodes responsible for the value of property `key` as seen from `within` (or the final output). */
function responsibleFor(
  state: PlannedRun,
  key: string,
  index: number | undefined,
  within?: string,
  depth = 0,
): string[] {
  const producer = latestProducer(state, key, within);
  return producer ? through(state, producer, key, index, depth) : [];
}

/** Who gave `producer` its value of `key`: itself when it is an agent, else the node(s) it took it from. */
function through(
  state: PlannedRun,
  producer: PlanNode,
  key: string,
  index: number | undefined,
  depth: number,
): string[] {
  if (depth > 50) return [];
  if (producer.capabilityId) return [producer.id];
  const merged = Object.entries(producer.merge ?? {}).some(
    ([facet, how]) => how === 'concat' && facetKey(facet) === key,
  );
  if (!merged) return responsibleFor(state, key, index, producer.id, depth + 1);
  const lanes = laneContributions(state, producer, key);
  const hit =
    index === undefined ? undefined : lanes.find((l) => index >= l.from && index < l.from + l.length);
  const chosen = hit ? [hit] : lanes;
  return chosen.flatMap((l) =>
    through(state, l.node, key, hit && index !== undefined ? index - l.from : undefined, depth + 1),
  );
}

function latestProducer(state: PlannedRun, key: string, within?: string): PlanNode | undefined {
  const scope = within ? ancestorsOf(state.plan, within) : undefined;
  return [...topologicalOrder(state.plan)].reverse().find((n) => {
    const live = state.nodes[n.id];
    return (!scope || scope.has(n.id)) && live?.status === 'completed' && live.output?.[key] !== undefined;
  });
}

/** Which items of a concatenation each upstream lane gave, in topological (lane) order. */
function laneContributions(
  state: PlannedRun,
  merge: PlanNode,
  key: string,
): Array<{ node: PlanNode; from: number; length: number }> {
  const upstream = new Set(upstreamOf(state.plan, merge.id));
  let from = 0;
  return topologicalOrder(state.plan)
    .filter((n) => upstream.has(n.id) && Array.isArray(state.nodes[n.id]?.output?.[key]))
    .map((node) => {
      const length = (state.nodes[node.id]?.output?.[key] as unknown[]).length;
      const lane = { node, from, length };
      from += length;
      return lane;
    });
}

/** The array index an error path points at under `root` (`/copyVariants/3/body` → 3). */
function itemIndex(path: string, root: string): number | undefined {
  const [, first, second] = path.split('/');
  if (first === undefined || first.replace(/~1/g, '/').replace(/~0/g, '~') !== root || second === undefined)
    return undefined;
  return /^\d+$/.test(second) ? Number(second) : undefined;
}

export function plain(error: PlainError): PlainError {
  return error.keyword === undefined
    ? { path: error.path, message: error.message }
    : { path: error.path, keyword: error.keyword, message: error.message };
}
