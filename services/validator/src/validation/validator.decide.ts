import type { CapabilityRegistration, EventPayload, PlanGraph } from '@flex/contracts';
import type { DecidedEvent } from '@flex/runtime';
import { policyKeys, type RunState } from '@flex/run-model';
import { mergeDiagnostics } from './diagnostics-merger';
import { checkCallerSchema, checkCapabilities, checkGraph, checkTopology } from './structural.checks';

export interface ValidationInput {
  draftEventId: string;
  draft: EventPayload<'plan_drafted'>;
  active: readonly CapabilityRegistration[];
  maxAttempts: number;
}

/**
 * Prove a draft (DESIGN §5.3): accepted → plan_generated; rejected → plan_rejected and either a
 * new plan_requested carrying the diagnostics or, past the attempt limit, run_failed.
 */
export function decideValidation(state: RunState, input: ValidationInput): DecidedEvent[] {
  if (state.status !== 'planning' && state.status !== 'running') return [];
  if (state.pendingDraft?.eventId !== input.draftEventId) return [];
  const { plan } = input.draft;
  const constraints = state.envelope.outputContract.constraints ?? [];
  const bundle = mergeDiagnostics(
    [...checkGraph(plan), ...checkCapabilities(plan, input.active), ...checkTopology(plan, state.envelope), ...checkCallerSchema(state.envelope)],
    constraints,
  );
  if (bundle.status !== 'rejected') {
    const planVersion = state.planVersion + 1;
    const accepted: PlanGraph = { ...plan, planVersion };
    return [
      {
        type: 'plan_generated',
        payload: {
          planVersion,
          plan: accepted,
          nodes: trimNodes(accepted),
          ...bundle,
          planHash: input.draft.planHash,
          metadata: {
            plannerId: plan.metadata.plannerId,
            plannerVersion: plan.metadata.plannerVersion,
            determinism: plan.metadata.determinism,
            inputHash: plan.metadata.inputHash,
          },
        },
      },
    ];
  }
  const attempt = input.draft.attempt;
  const rejected: DecidedEvent = { type: 'plan_rejected', payload: { attempt, diagnostics: bundle } };
  if (attempt < input.maxAttempts) {
    return [
      rejected,
      { type: 'plan_requested', payload: { attempt: attempt + 1, reason: 'rejected', policyKeys: policyKeys(state.envelope), diagnostics: bundle } },
    ];
  }
  const first = bundle.failures[0];
  return [
    rejected,
    {
      type: 'run_failed',
      payload: {
        code: 'plan_rejected',
        reason: `no valid plan after ${attempt} attempt(s)${first ? `: ${first.constraint ?? first.cause}` : ''}`,
        diagnostics: bundle,
      },
    },
  ];
}

export function trimNodes(plan: PlanGraph) {
  return plan.nodes.map((n) => ({
    nodeId: n.id,
    capabilityId: n.capabilityId,
    label: n.label,
    kind: n.kind,
    provides: n.outputFacets,
    enforces: n.enforces ?? [],
  }));
}
