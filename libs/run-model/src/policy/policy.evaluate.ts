import type { DecisionContract, NodeSelector, PlanNode, RuntimePolicy } from '@flex/contracts';
import { evaluateRule, truthy } from '@flex/logic';
import type { StartedRun } from '../run.state';
import { readMetric, runMetrics } from './run-metrics';

/** What happened that policies may react to. `eventId` makes each node trigger fire once. */
export type PolicyTriggerInput =
  | { kind: 'onStart' }
  | { kind: 'onNodeComplete'; nodeId: string; eventId: string }
  | { kind: 'onValidationFail'; nodeId: string; eventId: string; errors: unknown[] }
  | { kind: 'onTimeout' }
  | { kind: 'onMetricBelow' }
  | { kind: 'manual'; policyId: string };

/** A policy that fired: its decision (spec 002) and the trigger as `policy_triggered` records it. */
export interface PolicyFiring {
  policy: RuntimePolicy;
  decision: DecisionContract;
  trigger: Record<string, unknown>;
  nodeId?: string;
}

const deny = (reason: string, suggestion?: string): DecisionContract => ({
  result: 'DENY',
  reason: reason.slice(0, 4000),
  severity: 'hard',
  ...(suggestion ? { suggestion } : {}),
});

/** Enabled runtime policies of the run (normalized envelope), in declaration order. */
export function runtimePolicies(state: StartedRun): RuntimePolicy[] {
  return (state.envelope.policies?.runtime ?? []).filter((p) => p.enabled !== false);
}

/**
 * Evaluate every policy watching `input` (pure, deterministic). A policy fires at most once per
 * trigger key; a match or an evaluation error (fail closed) is a DENY (hard) firing, a non-match an
 * ALLOW that records nothing.
 */
export function evaluatePolicies(state: StartedRun, input: PolicyTriggerInput, now: Date): PolicyFiring[] {
  const firings: PolicyFiring[] = [];
  for (const policy of runtimePolicies(state)) {
    if (policy.trigger.kind !== input.kind) continue;
    if (input.kind === 'manual' && policy.id !== input.policyId) continue;
    const key = triggerKey(state, input);
    if (input.kind !== 'manual' && state.policyFirings[`${policy.id}|${key}`]) continue;
    const decision = decide(state, policy, input, now);
    if (decision.result === 'ALLOW') continue;
    const nodeId = 'nodeId' in input ? input.nodeId : undefined;
    firings.push({
      policy,
      decision,
      nodeId,
      trigger: { kind: input.kind, key, ...(nodeId ? { nodeId } : {}) },
    });
  }
  return firings;
}

function triggerKey(state: StartedRun, input: PolicyTriggerInput): string {
  switch (input.kind) {
    case 'onNodeComplete':
    case 'onValidationFail':
      return `${input.kind}:${input.eventId}`;
    case 'onMetricBelow':
      return `onMetricBelow:v${state.planVersion}`;
    case 'manual':
      return `manual:${Object.keys(state.policyFirings).filter((k) => k.includes('|manual:')).length + 1}`;
    default:
      return input.kind;
  }
}

function decide(
  state: StartedRun,
  policy: RuntimePolicy,
  input: PolicyTriggerInput,
  now: Date,
): DecisionContract {
  const trigger = policy.trigger;
  const allow: DecisionContract = {
    result: 'ALLOW',
    reason: `${policy.id}: not triggered`,
    severity: 'soft',
  };
  switch (trigger.kind) {
    case 'onStart':
      return deny(`${policy.id}: run started`);
    case 'manual':
      return deny(`${policy.id}: triggered by an operator`);
    case 'onTimeout': {
      const elapsed = now.getTime() - Date.parse(state.startedAt);
      return elapsed >= trigger.ms ? deny(`${policy.id}: run exceeded its ${trigger.ms} ms deadline`) : allow;
    }
    case 'onMetricBelow': {
      const value = readMetric(state, trigger.metric, now);
      if (value === undefined) return allow;
      if (typeof value !== 'number' || !Number.isFinite(value))
        return deny(`${policy.id}: metric ${trigger.metric} is not a number (fail closed)`);
      return value < trigger.threshold
        ? deny(`${policy.id}: ${trigger.metric} ${value} is below ${trigger.threshold}`)
        : allow;
    }
    case 'onNodeComplete':
    case 'onValidationFail': {
      if (!('nodeId' in input)) return allow;
      const node = state.plan?.nodes.find((n) => n.id === input.nodeId);
      if (!node || !selects(trigger.selector, node, state.nodes[node.id]?.capabilityId)) return allow;
      if (trigger.condition === undefined) return deny(`${policy.id}: ${input.kind} on ${node.id}`);
      const data = conditionData(state, node, input, now);
      const result = evaluateRule(trigger.condition, data);
      if (!result.ok)
        return deny(
          `${policy.id}: condition could not be evaluated (fail closed): ${result.error}`,
          'fix the policy condition',
        );
      return truthy(result.value) ? deny(`${policy.id}: condition holds on ${node.id}`) : allow;
    }
  }
}

/** A selector matches when every field it gives matches (an empty selector matches every node). */
function selects(selector: NodeSelector | undefined, node: PlanNode, liveCapabilityId?: string): boolean {
  if (!selector) return true;
  if (selector.nodeId !== undefined && selector.nodeId !== node.id) return false;
  if (selector.kind !== undefined && selector.kind !== node.kind) return false;
  if (
    selector.capabilityId !== undefined &&
    selector.capabilityId !== node.capabilityId &&
    selector.capabilityId !== liveCapabilityId
  )
    return false;
  return true;
}

/** The node's output merged with run metrics (`run.*`, `tokens`, `costCents`) and the node itself under `node`. */
function conditionData(
  state: StartedRun,
  node: PlanNode,
  input: PolicyTriggerInput,
  now: Date,
): Record<string, unknown> {
  const live = state.nodes[node.id];
  const base = { ...runMetrics(state, now), ...(live?.output ?? {}) };
  const nodeInfo = {
    id: node.id,
    kind: node.kind,
    capabilityId: live?.capabilityId ?? node.capabilityId,
    attempt: live?.attempt ?? 0,
  };
  return input.kind === 'onValidationFail'
    ? { ...base, node: nodeInfo, errors: input.errors }
    : { ...base, node: nodeInfo };
}
