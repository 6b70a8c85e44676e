import type { CapabilityRegistration, DiagnosticsBundle, PlanDiagnostic, PlanGraph, TaskEnvelope } from '@flex/contracts';
import { checkConstraints } from './constraint.checks';
import { mergeDiagnostics } from './diagnostics-merger';
import { envelopeFactsOf } from './envelope-facts';
import { checkDerived, checkDirectionality, checkInputCoverage } from './facet.checks';
import { indexPlan } from './plan-index';
import { checkPolicyAgainstSchema } from './policy.checks';
import { indexRegistry } from './registry-index';
import { checkCapabilities, checkGraph, checkTopology } from './structural.checks';

/** Every check of spec 000 §5.9.3 on one draft, unmerged: structural, facet, constraint, policy. */
export function planDiagnostics(plan: PlanGraph, envelope: TaskEnvelope, active: readonly CapabilityRegistration[]): PlanDiagnostic[] {
  const index = indexPlan(plan);
  const registry = indexRegistry(active);
  const facts = envelopeFactsOf(envelope);
  return [
    ...checkGraph(index),
    ...checkCapabilities(plan, registry),
    ...checkTopology(index, envelope),
    ...facts.diagnostics,
    ...checkDirectionality(index),
    ...checkInputCoverage(index, facts.supplied, registry),
    ...checkDerived(index, registry),
    ...checkConstraints(index, facts, registry, envelope.outputContract.constraints ?? []),
    ...checkPolicyAgainstSchema(index, facts),
  ];
}

/** Prove a draft: the merged diagnostics bundle and its verdict (pure). */
export function provePlan(plan: PlanGraph, envelope: TaskEnvelope, active: readonly CapabilityRegistration[]): DiagnosticsBundle {
  return mergeDiagnostics(planDiagnostics(plan, envelope, active), envelope.outputContract.constraints ?? []);
}
