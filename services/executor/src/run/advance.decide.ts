import type { PlanNode } from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import { mainPathComplete, readyNodes, upstreamOf, type RunState, type StartedRun } from '@flex/run-model';
import { composeFinalOutput } from './output-composer';

export interface AdvanceDecision {
  events: DecidedEvent[];
  /** A retry is waiting: look again after this many ms. */
  wakeInMs?: number;
}

/**
 * Move a running run forward (pure): start due retries, fail on a node that failed for good, start
 * ready nodes (virtual nodes complete at once), and compose the final output when the main path
 * is done. `now` comes from the adapter.
 */
export function decideAdvance(state: RunState, now: Date): AdvanceDecision {
  if (state.status !== 'running' || !state.plan) return { events: [] };
  const failed = Object.entries(state.nodes).find(([, n]) => n.status === 'failed');
  if (failed) {
    const [nodeId, node] = failed;
    return {
      events: [{ type: 'run_failed', payload: { code: 'node_failed', nodeId, reason: `${nodeId} failed after ${node.attempt} attempt(s): ${node.error?.message ?? 'unknown error'}` } }],
    };
  }
  const events: DecidedEvent[] = [];
  let wakeInMs: number | undefined;
  for (const [nodeId, node] of Object.entries(state.nodes)) {
    if (node.status !== 'retry_wait') continue;
    const wait = Date.parse(node.retryAt ?? '') - now.getTime();
    if (wait <= 0) events.push(nodeStart(state.plan.nodes.find((n) => n.id === nodeId) as PlanNode, node.attempt + 1, state));
    else wakeInMs = Math.min(wakeInMs ?? wait, wait);
  }
  for (const node of readyNodes(state.plan, state.nodes)) {
    events.push(nodeStart(node, 1, state));
    if (!node.capabilityId) events.push(virtualCompletion(state, node));
  }
  if (events.length === 0 && mainPathComplete(state.plan, state.nodes)) return { events: finish(state) };
  return { events, wakeInMs };
}

function nodeStart(node: PlanNode, attempt: number, state: StartedRun): DecidedEvent {
  return {
    type: 'node_start',
    payload: { nodeId: node.id, capabilityId: node.capabilityId, kind: node.kind, attempt, idempotencyKey: `${state.runId}:${node.id}:${attempt}` },
  };
}

/** Orchestrator-managed nodes (branch, transformation) pass their upstream facets through. */
function virtualCompletion(state: StartedRun, node: PlanNode): DecidedEvent {
  const output: Record<string, unknown> = {};
  for (const up of upstreamOf(state.plan!, node.id)) Object.assign(output, state.nodes[up]?.output ?? {});
  const kept = node.outputFacets.length ? Object.fromEntries(Object.entries(output).filter(([k]) => node.outputFacets.includes(k))) : output;
  return { type: 'node_complete', payload: { nodeId: node.id, kind: node.kind, attempt: 1, output: kept, durationMs: 0 } };
}

function finish(state: StartedRun): DecidedEvent[] {
  const composed = composeFinalOutput(state);
  if (!composed.ok) {
    return [
      { type: 'validation_error', payload: { scope: 'final_output', errors: composed.errors } },
      { type: 'run_failed', payload: { code: 'output_invalid', reason: `the final output does not satisfy the caller schema: ${composed.errors[0]?.message ?? ''}` } },
    ];
  }
  return [{ type: 'complete', payload: { output: composed.output, planVersion: state.planVersion, satisfactionScore: state.satisfactionScore } }];
}
