import type { PlanNode } from '@flex/contracts';
import type { DecidedFlexEvent } from '@flex/contracts';
import type { StartedRun } from '@flex/run-model';

/** `node_start` for one attempt; the idempotency key (`runId:nodeId:attempt`) is what the agent dedupes on. */
export function nodeStart(
  node: PlanNode,
  attempt: number,
  state: StartedRun,
  capabilityId = node.capabilityId,
): DecidedFlexEvent {
  return {
    type: 'node_start',
    payload: JSON.parse(
      JSON.stringify({
        nodeId: node.id,
        capabilityId,
        kind: node.kind,
        attempt,
        idempotencyKey: `${state.runId}:${node.id}:${attempt}`,
      }),
    ),
  };
}
