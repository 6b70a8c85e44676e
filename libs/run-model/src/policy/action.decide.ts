import type { Action, DecisionContract } from '@flex/contracts';
import {
  isPlanned,
  isTerminal,
  pendingHitlRequests,
  policyKeys,
  replanInFlight,
  type RunState,
  type StartedRun,
} from '../run.state';
import { foldDecided, type Decided } from './fold';
import { replanLimitFailure, type RunLimits } from './run-limits';

/** Where an action comes from: the policy that fired (if any), its trigger and the node concerned. */
export interface ActionContext {
  policyId?: string;
  trigger: Record<string, unknown>;
  nodeId?: string;
  /** What the operator reviews (node output, metrics…). */
  artifact?: unknown;
}

/** Actions that hold the run: once one is decided, later firings of the same evaluation wait. */
export const BLOCKING_ACTIONS: ReadonlySet<Action['type']> = new Set(['replan', 'hitl', 'fail', 'pause']);

/**
 * The events one canonical action produces (pure). `resume` (a HITL approval's default) produces
 * nothing: the run simply advances again. Bounded actions past their bound fail the run.
 */
export function decideAction(
  state: StartedRun,
  action: Action | 'resume',
  ctx: ActionContext,
  limits: RunLimits,
): Decided[] {
  if (isTerminal(state) || action === 'resume') return [];
  switch (action.type) {
    case 'fail':
      return [
        failed(
          'policy_failed',
          action.message ?? `policy ${ctx.policyId ?? '(hitl)'} failed the run`,
          ctx.nodeId,
        ),
      ];
    case 'emit':
      return [
        {
          type: 'custom_event',
          payload: strip({ event: action.event, payload: action.payload, policyId: ctx.policyId }),
        },
      ];
    case 'pause':
      if (state.status === 'paused') return [];
      return [
        {
          type: 'run_paused',
          payload: strip({
            reason: action.reason ?? `paused by policy ${ctx.policyId ?? '(hitl)'}`,
            policyId: ctx.policyId,
            snapshot: runSnapshot(state),
          }),
        },
      ];
    case 'replan':
      return replan(state, ctx, limits);
    case 'hitl':
      return hitl(state, action, ctx, limits);
  }
}

/** Record each firing and run its action, stopping at the first that holds the run. */
export function decideFirings(
  state: StartedRun,
  firings: ReadonlyArray<{
    policy: { id: string; action: Action };
    decision: DecisionContract;
    trigger: Record<string, unknown>;
    nodeId?: string;
    artifact?: unknown;
  }>,
  limits: RunLimits,
  now: Date,
): Decided[] {
  const out: Decided[] = [];
  let current: RunState = state;
  for (const f of firings) {
    if (isTerminal(current) || current.status === 'none') break;
    const recorded: Decided = {
      type: 'policy_triggered',
      payload: strip({
        policyId: f.policy.id,
        trigger: f.trigger,
        actionDetails: f.policy.action,
        decision: f.decision,
        nodeId: f.nodeId,
      }),
    };
    const afterRecord = foldDecided(current, [recorded], now) as StartedRun;
    const effects = decideAction(
      afterRecord,
      f.policy.action,
      { policyId: f.policy.id, trigger: f.trigger, nodeId: f.nodeId, artifact: f.artifact },
      limits,
    );
    out.push(recorded, ...effects);
    current = foldDecided(afterRecord, effects, now);
    if (BLOCKING_ACTIONS.has(f.policy.action.type)) break;
  }
  return out;
}

/**
 * A replan (docs/lifecycle.md): one already asked for (in flight, or waiting) is joined, not asked
 * again; while HITL requests are pending it waits for their decisions (`replan_deferred`); past the
 * bound the run fails. A paused run replans and stays paused.
 */
function replan(state: StartedRun, ctx: ActionContext, limits: RunLimits): Decided[] {
  if (replanInFlight(state) || (isPlanned(state) && state.deferredReplan)) return [];
  const refused = replanLimitFailure(
    state.replans + 1,
    limits.maxReplans,
    `policy ${ctx.policyId ?? '(hitl)'}`,
  );
  if (refused) return [failed(refused.code, refused.reason, ctx.nodeId)];
  const trigger = strip({ ...ctx.trigger, policyId: ctx.policyId });
  const waitingFor = pendingHitlRequests(state);
  if (waitingFor.length)
    return [
      {
        type: 'replan_deferred',
        payload: strip({ trigger, waitingFor, policyId: ctx.policyId, nodeId: ctx.nodeId }),
      },
    ];
  return [planRequest(state, trigger)];
}

/**
 * The replan a `replan_deferred` waits for, asked once no HITL request is pending and the run is
 * not paused (nothing when it has none, or must still wait).
 */
export function decideDeferredReplan(state: RunState, limits: RunLimits): Decided[] {
  if (state.status !== 'running' || !state.deferredReplan || replanInFlight(state)) return [];
  const { trigger, policyId, nodeId } = state.deferredReplan;
  const refused = replanLimitFailure(state.replans + 1, limits.maxReplans, `policy ${policyId ?? '(hitl)'}`);
  if (refused) return [failed(refused.code, refused.reason, nodeId)];
  return [planRequest(state, trigger)];
}

function planRequest(state: StartedRun, trigger: Record<string, unknown>): Decided {
  const completedNodeIds = Object.entries(state.nodes)
    .filter(([, n]) => n.status === 'completed')
    .map(([id]) => id)
    .sort();
  const replan = { trigger, previousVersion: Math.max(state.planVersion, 1), completedNodeIds };
  return {
    type: 'plan_requested',
    payload: {
      attempt: state.planAttempt + 1,
      reason: 'replan',
      policyKeys: policyKeys(state.envelope),
      replan,
    },
  };
}

function hitl(
  state: StartedRun,
  action: Extract<Action, { type: 'hitl' }>,
  ctx: ActionContext,
  limits: RunLimits,
): Decided[] {
  if (state.hitlCount >= limits.maxHitlRequests)
    return [
      failed(
        'hitl_exhausted',
        `the run raised ${state.hitlCount} HITL request(s); the limit is ${limits.maxHitlRequests}`,
        ctx.nodeId,
      ),
    ];
  const node = ctx.nodeId ? state.plan?.nodes.find((n) => n.id === ctx.nodeId) : undefined;
  return [
    {
      type: 'hitl_request',
      payload: strip({
        requestId: nextHitlRequestId(state),
        nodeId: ctx.nodeId,
        policyId: ctx.policyId,
        rationale: action.rationale ?? `policy ${ctx.policyId ?? '(follow-up)'} asks an operator to approve`,
        contractSummary: {
          outputSchema: state.envelope.outputContract.schema,
          ...(node ? { nodeOutputFacets: node.outputFacets } : {}),
        },
        artifact: ctx.artifact ?? (ctx.nodeId ? (state.nodes[ctx.nodeId]?.output ?? null) : null),
        mode: 'approval',
        action,
      }),
    },
  ];
}

/** Request ids derive from the run's own count, so a replayed decision gives the same id. */
export function nextHitlRequestId(state: StartedRun): string {
  return `hitl-${state.hitlCount + 1}`;
}

/** A pause snapshot: plan version, node states with attempts, policy state and HITL state. */
export function runSnapshot(state: StartedRun): Record<string, unknown> {
  return strip({
    planVersion: state.planVersion,
    status: state.status,
    nodes: Object.fromEntries(
      Object.entries(state.nodes).map(([id, n]) => [
        id,
        {
          status: n.status,
          attempt: n.attempt,
          capabilityId: n.capabilityId,
          fallbackCapabilityId: n.fallbackCapabilityId,
        },
      ]),
    ),
    policyFirings: state.policyFirings,
    hitl: {
      count: state.hitlCount,
      pending: Object.values(state.hitl)
        .filter((h) => h.status === 'pending')
        .map((h) => h.requestId),
    },
    replans: state.replans,
  });
}

function failed(code: string, reason: string, nodeId?: string): Decided {
  return { type: 'run_failed', payload: strip({ code, reason, nodeId }) };
}

/** JSON payloads carry no `undefined` fields. */
function strip<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
