import type { DecidedEvent } from './compare';
import type { DivergentDecision } from './verify-replay';

/** The kinds of decision a policy what-if reports (docs/AUDIT.md, "Policy what-if"). */
export const WHAT_IF_CHANGE_KINDS = ['deny', 'hitl', 'replan', 'emit', 'pause', 'outcome', 'other'] as const;

/** One of {@link WHAT_IF_CHANGE_KINDS}. */
export type WhatIfChangeKind = (typeof WHAT_IF_CHANGE_KINDS)[number];

/**
 * One decision that would be taken differently at a run's first divergence:
 * - `deny`: a policy fires (its DENY, `policy_triggered`): `new` is ALLOW→DENY, `vanished` DENY→ALLOW;
 * - `hitl`: a human is asked (`hitl_request`); `replan`: a new plan is asked for (`plan_requested`
 *   with `replan`, or `replan_deferred`); `emit`: a `custom_event`; `pause`: `run_paused`;
 * - `outcome`: the run ends here (`complete`, `run_failed`, `run_cancelled`);
 * - `other`: the decision differs in nothing above (a field of the same events: `detail` says which).
 */
export interface WhatIfChange {
  readonly kind: WhatIfChangeKind;
  readonly change: 'new' | 'vanished' | 'changed';
  /** What it is: the event type, and the action, node or event name that tells it apart. */
  readonly detail: string;
  readonly policyId?: string;
  readonly nodeId?: string;
}

interface Fact {
  kind: WhatIfChangeKind;
  key: string;
  detail: string;
  policyId?: string;
  nodeId?: string;
}

/**
 * The decisions that differ between what the component decides now and what the record holds, in
 * one divergent decision: facts compared as multisets (new: decided now only; vanished: recorded
 * only). When none differs, one `other` change names the first differing field (`path`).
 */
export function decisionChanges(decision: DivergentDecision, path: string, type: string): WhatIfChange[] {
  const now = decision.now.flatMap(factsOf);
  const recorded = decision.recorded.flatMap(factsOf);
  const changes = [
    ...minus(now, recorded).map((f) => change(f, 'new')),
    ...minus(recorded, now).map((f) => change(f, 'vanished')),
  ];
  if (changes.length > 0) return changes;
  return [{ kind: 'other', change: 'changed', detail: `${type} ${path || '(the whole event)'}` }];
}

/** The terminal event among a decision's events, if it ends the run. */
export function terminalOf(events: readonly DecidedEvent[]): string | undefined {
  return events.find((e) => TERMINAL.has(e.type))?.type;
}

const TERMINAL: ReadonlySet<string> = new Set(['complete', 'run_failed', 'run_cancelled']);

function change(fact: Fact, change: WhatIfChange['change']): WhatIfChange {
  const { kind, detail, policyId, nodeId } = fact;
  return { kind, change, detail, ...(policyId ? { policyId } : {}), ...(nodeId ? { nodeId } : {}) };
}

function minus(a: readonly Fact[], b: readonly Fact[]): Fact[] {
  const left = [...b];
  return a.filter((fact) => {
    const i = left.findIndex((f) => f.key === fact.key);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

function factsOf(event: DecidedEvent): Fact[] {
  const p = (event.payload ?? {}) as Record<string, unknown>;
  const policyId = typeof p.policyId === 'string' ? p.policyId : undefined;
  const nodeId = typeof p.nodeId === 'string' ? p.nodeId : undefined;
  const fact = (kind: WhatIfChangeKind, detail: string): Fact[] => [
    { kind, key: `${kind}|${detail}|${policyId ?? ''}|${nodeId ?? ''}`, detail, policyId, nodeId },
  ];
  switch (event.type) {
    case 'policy_triggered': {
      const action = (p.actionDetails as { type?: string } | undefined)?.type ?? '?';
      const trigger = (p.trigger as { kind?: string } | undefined)?.kind ?? '?';
      return fact('deny', `policy_triggered ${trigger} → ${action}`);
    }
    case 'hitl_request':
      return fact('hitl', `hitl_request ${String(p.mode ?? 'approval')}`);
    case 'plan_requested':
      return p.replan ? fact('replan', 'plan_requested (replan)') : [];
    case 'replan_deferred':
      return fact('replan', 'replan_deferred');
    case 'custom_event':
      return fact('emit', `custom_event ${String(p.event)}`);
    case 'run_paused':
      return fact('pause', 'run_paused');
    default:
      if (!TERMINAL.has(event.type)) return [];
      return fact('outcome', typeof p.code === 'string' ? `${event.type} ${p.code}` : event.type);
  }
}
