import type { EventPayload, RuntimePolicy } from '@flex/contracts';
import type { StoredEvent } from '@flex/event-store';
import type { ReplayAdapters } from './adapter';
import { verifyReplay, type Divergence } from './verify-replay';
import { decisionChanges, terminalOf, type WhatIfChange } from './what-if-changes';

/**
 * How one recorded run would have gone under candidate runtime policies, up to where it can be
 * told (docs/AUDIT.md, "Policy what-if"):
 * - `unchanged`: every recorded decision is decided the same with the candidate policies;
 * - `changed`: the first decision that differs, what differs in it, and the policies responsible;
 *   nothing after it is compared (the agents' outputs and humans' decisions recorded after it
 *   answered a run that would no longer exist);
 * - `not_comparable`: the run does not re-decide the same even with its own policies (decision
 *   logic changed since it was recorded: `replay --verify` names it) before the candidate policies
 *   change anything, so no difference can be put down to them.
 */
export interface WhatIfRun {
  readonly runId: string;
  readonly verdict: 'unchanged' | 'changed' | 'not_comparable';
  readonly events: number;
  /** Recorded events decided the same before the first divergence (all of them when unchanged). */
  readonly compared: number;
  readonly open: boolean;
  readonly outcome: WhatIfOutcome;
  /** `changed`: the first divergent event with the candidate policies; `not_comparable`: with the run's own. */
  readonly divergence?: WhatIfDivergence;
  /** `changed`: the decisions that differ at the divergence. */
  readonly changes: readonly WhatIfChange[];
  /** `changed`: the policy ids named by the differing decisions (candidate or recorded). */
  readonly policies: readonly string[];
}

/**
 * The run's ending: `recorded` its terminal event type (`open` when it has none), `whatIf` the one
 * the candidate policies lead to when the divergent decision itself ends the run, or the recorded
 * one when nothing changes; `unknown` when it would depend on inputs the record does not have.
 */
export interface WhatIfOutcome {
  readonly recorded: string;
  readonly whatIf: string;
  /** `null`: cannot be told (`whatIf` unknown). */
  readonly changed: boolean | null;
}

export type WhatIfDivergence = Pick<
  Divergence,
  'kind' | 'position' | 'version' | 'type' | 'path' | 'recorded' | 'now' | 'component'
> & { readonly via?: string };

/**
 * Re-decide a recorded run with `policies` in place of its runtime policies (the `start` event's
 * `envelope.policies.runtime`; `plan_requested.policyKeys` lists them, so its `runtime.*` keys are
 * rewritten too) through the current decide functions (`adapters`), and report the first decision
 * that would differ. `mode`: `replace` (the run's policies are `policies`) or `merge` (each of the
 * run's policies with the id of a candidate is replaced by it in place; the others stay, and the
 * candidates with new ids follow them). Pure: the record is read, never written.
 */
export function whatIfRun(
  events: readonly StoredEvent[],
  candidates: readonly RuntimePolicy[],
  adapters: ReplayAdapters,
  mode: WhatIfMode = 'replace',
): WhatIfRun {
  const policies = mode === 'merge' ? merged(ownPolicies(events), candidates) : candidates;
  const runId = (events[0]?.streamId ?? '').replace(/^run-/, '');
  const recordedEnd = events.map((e) => e.type).find((t) => TERMINAL.has(t)) ?? 'open';
  const base = { runId, events: events.length, open: recordedEnd === 'open' };
  const own = verifyReplay(events, adapters);
  const candidate = verifyReplay(withPolicies(events, policies), adapters, { decisions: true });
  const d = candidate.divergence;
  const ownFirst = own.divergence && (!d || own.divergence.version <= d.version);
  if (ownFirst && own.divergence) {
    const outcome = { recorded: recordedEnd, whatIf: 'unknown', changed: null };
    const divergence = summary(own.divergence);
    return {
      ...base,
      verdict: 'not_comparable',
      compared: own.verified,
      outcome,
      divergence,
      changes: [],
      policies: [],
    };
  }
  if (!d) {
    const outcome = { recorded: recordedEnd, whatIf: recordedEnd, changed: false };
    return {
      ...base,
      verdict: 'unchanged',
      compared: candidate.verified,
      outcome,
      changes: [],
      policies: [],
    };
  }
  const changes = d.decision ? decisionChanges(d.decision, d.path, d.type) : [];
  const ending = d.decision ? terminalOf(d.decision.now) : undefined;
  const outcome: WhatIfOutcome = ending
    ? { recorded: recordedEnd, whatIf: ending, changed: ending !== recordedEnd }
    : { recorded: recordedEnd, whatIf: 'unknown', changed: null };
  const policyIds = [...new Set(changes.flatMap((c) => (c.policyId ? [c.policyId] : [])))];
  return {
    ...base,
    verdict: 'changed',
    compared: candidate.verified,
    outcome,
    divergence: summary(d),
    changes,
    policies: policyIds,
  };
}

/** Whether a run's events start before `since` (ISO-8601): `--runs` and `--since` together keep the others. */
export function startedBefore(events: readonly StoredEvent[], since: string | undefined): boolean {
  return since !== undefined && events.length > 0 && Date.parse(events[0].timestamp) < Date.parse(since);
}

const TERMINAL: ReadonlySet<string> = new Set(['complete', 'run_failed', 'run_cancelled']);

/** How candidate policies take the place of a run's own (see {@link whatIfRun}). */
export type WhatIfMode = 'replace' | 'merge';

function ownPolicies(events: readonly StoredEvent[]): readonly RuntimePolicy[] {
  const start = events.find((e) => e.type === 'start')?.payload as EventPayload<'start'> | undefined;
  return start?.envelope?.policies?.runtime ?? [];
}

function merged(own: readonly RuntimePolicy[], candidates: readonly RuntimePolicy[]): RuntimePolicy[] {
  const byId = new Map(candidates.map((p) => [p.id, p]));
  const kept = own.map((p) => byId.get(p.id) ?? p);
  const ownIds = new Set(own.map((p) => p.id));
  return [...kept, ...candidates.filter((p) => !ownIds.has(p.id))];
}

/** The run's events as if it had been started with `policies` as its runtime policies. */
export function withPolicies(
  events: readonly StoredEvent[],
  policies: readonly RuntimePolicy[],
): StoredEvent[] {
  const keys = policies.map((p) => `runtime.${p.id}`);
  return events.map((event) => {
    if (event.type === 'start') {
      const payload = event.payload as EventPayload<'start'>;
      const envelope = payload.envelope;
      if (!envelope) return event; // not a start any run has: decided again as it is, and reported
      const replaced = { ...envelope, policies: { ...envelope.policies, runtime: [...policies] } };
      return { ...event, payload: { ...payload, envelope: replaced } };
    }
    if (event.type === 'plan_requested') {
      const payload = event.payload as EventPayload<'plan_requested'>;
      const others = payload.policyKeys.filter((k) => !k.startsWith('runtime.'));
      return { ...event, payload: { ...payload, policyKeys: [...others, ...keys].sort() } };
    }
    return event;
  });
}

function summary(d: Divergence): WhatIfDivergence {
  const { kind, position, version, type, path, recorded, now, component, via } = d;
  return { kind, position, version, type, path, recorded, now, component, ...(via ? { via } : {}) };
}
