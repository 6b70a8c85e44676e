import type { CapabilityRegistration, ConstraintSpec, PlanGraph, PlanNode } from '@flex/contracts';
import type { AgentInvocation } from '@flex/agent-sdk';
import type { RunState } from '@flex/run-model';
import { buildInvocation } from '../run/context-builder';
import { decideAdvance, type AdvanceOptions } from '../run/advance.decide';
import { envelopeWith, fold, plan, runEvents, variants } from './run.fixtures';

export type Given = { type: string; payload: unknown };

/** A hard constraint the copy breaks when a body promises a guarantee. */
export const noGuarantees: ConstraintSpec = {
  constraintId: 'no_guarantees',
  level: 'hard',
  expr: { '!': { in: ['guaranteed', { var: 'copyVariants.0.body' }] } },
};

/** Variants that break `noGuarantees`, and ones that keep it. */
export const guaranteed = [{ ...variants[0], body: 'Success guaranteed for everyone.' }, variants[1]];
export const honest = variants;

export const altWriter: CapabilityRegistration = {
  capabilityId: 'W.alt',
  agentType: 'ai',
  version: '1',
  displayName: 'Alt writer',
  summary: 'Writes',
  inputContract: ['writerBrief'],
  outputContract: ['copyVariants'],
};

/** The fixture plan (strategy → writer → QA, a HITL fallback node for the writer) with the writer changed. */
export function planWith(writer: Partial<PlanNode> = {}, options: { standby?: boolean } = {}): PlanGraph {
  const nodes = plan.nodes
    .map((n) => (n.id === 'execution-1' ? { ...n, ...writer } : n))
    .filter((n) => options.standby !== false || n.kind !== 'fallback');
  return { ...plan, nodes, edges: plan.edges.filter((e) => nodes.some((n) => n.id === e.to)) };
}

/** The fixture run's events with another plan and the contract's constraints, then `more`. */
export function repairRun(
  opts: { plan?: PlanGraph; constraints?: ConstraintSpec[] },
  ...more: Given[]
): Given[] {
  const [start, requested, generated] = runEvents([]);
  const envelope = envelopeWith([]);
  const withConstraints = {
    ...envelope,
    outputContract: { ...envelope.outputContract, constraints: opts.constraints ?? [] },
  };
  const graph = opts.plan ?? plan;
  return [
    { type: start.type, payload: { ...(start.payload as object), envelope: withConstraints } },
    requested,
    {
      type: generated.type,
      payload: { ...(generated.payload as object), plan: graph, metadata: graph.metadata },
    },
    ...more,
  ];
}

/** What an agent answers for one invocation (the output of the node's facets). */
export type Respond = (invocation: AgentInvocation) => Record<string, unknown>;

/**
 * Drive `decideAdvance` the way the adapter would: append what it decides, answer every agent
 * `node_start` at once with `respond`, and stop at a terminal event, a HITL request, or when
 * nothing is left to decide (or, with `stopBefore`, before appending a decision holding that type).
 * Returns the whole history.
 */
export function drive(
  history: Given[],
  respond: Respond,
  options: AdvanceOptions,
  now: Date,
  stopBefore?: string,
): Given[] {
  let events = [...history];
  for (let step = 0; step < 200; step++) {
    const decision = decideAdvance(fold(events), now, options);
    if (decision.events.length === 0) return events;
    if (stopBefore && decision.events.some((e) => e.type === stopBefore)) return events;
    events = applyDecided(events, decision.events, respond);
    if (decision.events.some((e) => ['complete', 'run_failed', 'hitl_request'].includes(e.type)))
      return events;
  }
  throw new Error('the run did not settle within 200 decisions');
}

/** Append decided events, answering each agent `node_start` with `respond` right after it. */
export function applyDecided(history: Given[], decided: readonly Given[], respond: Respond): Given[] {
  let events = [...history];
  for (const e of decided) {
    events = [...events, { type: e.type, payload: e.payload }];
    const start =
      e.type === 'node_start'
        ? (e.payload as { nodeId: string; attempt: number; capabilityId?: string })
        : undefined;
    const state = fold(events);
    const node = start && plannedNode(state, start.nodeId);
    if (!start || !node?.capabilityId || state.status === 'none') continue;
    const invocation = {
      ...buildInvocation(state, node, start.attempt, 0),
      capabilityId: start.capabilityId ?? node.capabilityId,
    };
    events.push({
      type: 'node_complete',
      payload: {
        nodeId: node.id,
        capabilityId: invocation.capabilityId,
        attempt: start.attempt,
        output: respond(invocation),
        durationMs: 1,
      },
    });
  }
  return events;
}

function plannedNode(state: RunState, nodeId: string): PlanNode | undefined {
  return state.status === 'none' ? undefined : state.plan?.nodes.find((n) => n.id === nodeId);
}

/** A compact view of what a history did after `from`: `type nodeId#attempt [capability|detail]`. */
export function trace(events: readonly Given[], from: number): string[] {
  return events.slice(from).map(({ type, payload }) => {
    const p = payload as {
      nodeId?: string;
      attempt?: number;
      capabilityId?: string;
      willRetry?: boolean;
      scope?: string;
      code?: string;
      error?: { code: string };
    };
    const where = p.nodeId ? ` ${p.nodeId}${p.attempt ? `#${p.attempt}` : ''}` : '';
    const detail =
      type === 'node_start'
        ? ` ${p.capabilityId}`
        : type === 'node_error'
          ? ` ${p.error?.code} retry=${p.willRetry}`
          : type === 'validation_error'
            ? ` ${p.scope}`
            : type === 'run_failed'
              ? ` ${p.code}`
              : '';
    return `${type}${where}${detail}`;
  });
}
