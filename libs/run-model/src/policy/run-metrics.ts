import { topologicalOrder } from '../plan.graph';
import type { StartedRun } from '../run.state';

/**
 * What policy conditions and `onMetricBelow` read besides a node's output: run duration, plan
 * version, counters, and `tokens` / `costCents` summed from the usage agents reported with their
 * completed attempts (`node_complete.usage`; 0 when none reported any).
 */
export function runMetrics(state: StartedRun, now: Date): Record<string, unknown> {
  let tokens = 0;
  let costCents = 0;
  for (const node of Object.values(state.nodes)) {
    const usage = node.status === 'completed' ? node.usage : undefined;
    if (typeof usage?.tokens === 'number') tokens += usage.tokens;
    if (typeof usage?.costCents === 'number') costCents += usage.costCents;
  }
  return {
    run: {
      durationMs: Math.max(0, now.getTime() - Date.parse(state.startedAt)),
      planVersion: state.planVersion,
      replans: state.replans,
      hitlRequests: state.hitlCount,
      completedNodes: Object.values(state.nodes).filter((n) => n.status === 'completed').length,
    },
    tokens,
    costCents,
  };
}

/** The latest validated outputs merged in plan order (later nodes win), as metrics read them. */
export function latestOutputs(state: StartedRun): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  const order = state.plan ? topologicalOrder(state.plan).map((n) => n.id) : Object.keys(state.nodes);
  for (const id of order) {
    const node = state.nodes[id];
    if (node?.status === 'completed' && node.output) Object.assign(merged, node.output);
  }
  return merged;
}

/** A dotted metric name (`qaFindings.overallScore`, `run.durationMs`, `tokens`) looked up in run metrics, then in the latest outputs. */
export function readMetric(state: StartedRun, metric: string, now: Date): unknown {
  const fromRun = dig(runMetrics(state, now), metric);
  return fromRun !== undefined ? fromRun : dig(latestOutputs(state), metric);
}

function dig(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (!current || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, part))
      return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}
