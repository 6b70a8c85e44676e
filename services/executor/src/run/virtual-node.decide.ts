import type { PlanGraph, PlanNode } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import {
  bindingErrors,
  constraintRoots,
  enforcedConstraintErrors,
  facetKey,
  topologicalOrder,
  upstreamOf,
  type OutputIssue,
  type StartedRun,
} from '@flex/run-model';
import { blameErrors, type RootedError } from './blame';
import type { AdvanceOptions } from './fallback.decide';
import { nodeStart } from './node-start';
import { repairBlamed } from './repair.decide';

type PlannedRun = StartedRun & { plan: PlanGraph };

/** What running an orchestrator-managed node decided: it completed (or failed), or its lanes are repaired. */
export type VirtualRun =
  { kind: 'ran'; events: DecidedFlexEvent[] } | { kind: 'repair'; events: DecidedFlexEvent[] };

/**
 * Orchestrator-managed nodes (branch, transformation, merge) complete at once: they pass their
 * upstream facets through, and a facet the node merges with `concat` is the concatenation of the
 * upstream lanes' arrays in topological order. The result is held to the node's bindings and the
 * hard constraints it enforces; when it breaks them, the lanes it took the offending values from
 * are repaired (retried with the errors as feedback…) and the node runs again after them. When no
 * upstream agent can be blamed, the node fails for good.
 */
export function runVirtual(
  state: PlannedRun,
  node: PlanNode,
  attempt: number,
  options: AdvanceOptions,
): VirtualRun {
  const output = virtualOutput(state, node);
  const errors = virtualErrors(state, node, output);
  const start = nodeStart(node, attempt, state);
  if (errors.length === 0) {
    return {
      kind: 'ran',
      events: [
        start,
        {
          type: 'node_complete',
          payload: { nodeId: node.id, attempt, output, durationMs: 0 },
        },
      ],
    };
  }
  const refused: DecidedFlexEvent = {
    type: 'validation_error',
    payload: {
      scope: 'capability_output',
      nodeId: node.id,
      attempt,
      errors: errors.slice(0, 50).map(({ roots: _roots, ...e }) => e),
    },
  };
  const message =
    `${node.id} combines its upstream outputs into one that breaks its contract: ${errors[0].path} ${errors[0].message}`.slice(
      0,
      8_000,
    );
  const blamed = blameErrors(state, errors, node);
  if (blamed)
    return {
      kind: 'repair',
      events: [
        refused,
        ...repairBlamed(
          state,
          blamed,
          { scope: 'capability_output', error: { code: 'invalid_output', message } },
          options,
        ),
      ],
    };
  const failed: DecidedFlexEvent = {
    type: 'node_error',
    payload: {
      nodeId: node.id,
      attempt,
      error: { code: 'invalid_output', message, retryable: false },
      willRetry: false,
    },
  };
  return { kind: 'ran', events: [start, refused, failed] };
}

/** Bindings first; the enforced constraints only on an output that meets them. Each error with the facets it is about. */
function virtualErrors(state: PlannedRun, node: PlanNode, output: Record<string, unknown>): RootedError[] {
  const rooted = (e: OutputIssue, roots: string[]): RootedError => ({
    ...(e.keyword === undefined
      ? { path: e.path, message: e.message }
      : { path: e.path, keyword: e.keyword, message: e.message }),
    roots,
  });
  const bound = bindingErrors(node, output);
  if (bound.length) return bound.map((e) => rooted(e, e.facet ? [facetKey(e.facet)] : []));
  const constraints = state.envelope.outputContract.constraints ?? [];
  return enforcedConstraintErrors(state, node, output).map((e) => {
    const id = e.path.slice('/constraints/'.length);
    const spec = constraints.find((c, i) => (c.constraintId ?? `constraint_${i}`) === id);
    return rooted(e, spec ? constraintRoots(spec.expr) : []);
  });
}

/** Upstream outputs merged (later lanes win), restricted to the node's output facets, merges applied. */
export function virtualOutput(state: StartedRun, node: PlanNode): Record<string, unknown> {
  const lanes = upstreamLanes(state, node);
  const merged: Record<string, unknown> = {};
  for (const lane of lanes) Object.assign(merged, lane);
  const keys = node.outputFacets.map(facetKey);
  const kept = node.outputFacets.length
    ? Object.fromEntries(Object.entries(merged).filter(([k]) => keys.includes(k)))
    : merged;
  for (const [facet, strategy] of Object.entries(node.merge ?? {})) {
    if (strategy !== 'concat') continue;
    const key = facetKey(facet);
    const arrays = lanes.map((lane) => lane[key]).filter((v): v is unknown[] => Array.isArray(v));
    if (arrays.length > 0) kept[key] = arrays.flat();
  }
  return kept;
}

/** The outputs of the node's upstream nodes, in topological order. */
function upstreamLanes(state: StartedRun, node: PlanNode): Array<Record<string, unknown>> {
  if (!state.plan) return [];
  const upstream = new Set(upstreamOf(state.plan, node.id));
  return topologicalOrder(state.plan)
    .filter((n) => upstream.has(n.id))
    .map((n) => state.nodes[n.id]?.output ?? {});
}
