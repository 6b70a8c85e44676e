import { proveContract } from '@flex/proof';
import type {
  CapabilityRegistration,
  DiagnosticsBundle,
  PlanDiagnostic,
  PlanGraph,
  TaskEnvelope,
} from '@flex/contracts';
import { checkConstraints } from './constraint.checks';
import { mergeDiagnostics } from './diagnostics-merger';
import { envelopeFactsOf } from './envelope-facts';
import { checkDerived, checkDirectionality, checkInputCoverage } from './facet.checks';
import { indexPlan } from './plan-index';
import { checkPolicyAgainstSchema } from './policy.checks';
import { proofDiagnostics } from './proof.checks';
import { indexRegistry } from './registry-index';
import { checkCapabilities, checkGraph, checkTopology } from './structural.checks';

/** Every check of spec 000 §5.9.3 on one draft, unmerged: structural, facet, constraint, policy. */
export function planDiagnostics(
  plan: PlanGraph,
  envelope: TaskEnvelope,
  active: readonly CapabilityRegistration[],
): PlanDiagnostic[] {
  const index = indexPlan(plan);
  const registry = indexRegistry(active);
  const facts = envelopeFactsOf(envelope);
  const constraints = checkConstraints(index, facts, registry, envelope.outputContract.constraints ?? []);
  // A constraint whose facet nobody produces is already reported as such; the proof would only add
  // that it cannot hold.
  const unproduced = new Set(
    constraints
      .filter((d) => d.cause === 'missing_producer' || d.cause === 'unsatisfied_soft')
      .map((d) => d.constraintId),
  );
  // The proof reads a well-formed graph; a broken one is reported by the structural checks.
  const wellFormed =
    index.acyclic && index.danglingEdges.length === 0 && index.nodes.length === plan.nodes.length;
  const proof = wellFormed
    ? proofDiagnostics(proveContract(plan, envelope), envelope.outputContract.constraints ?? []).filter(
        (d) => !unproduced.has(d.constraintId),
      )
    : [];
  return [
    ...checkGraph(index),
    ...checkCapabilities(plan, registry),
    ...checkTopology(index, envelope),
    ...facts.diagnostics,
    ...checkDirectionality(index),
    ...checkInputCoverage(index, facts.supplied, registry),
    ...checkDerived(index, registry),
    ...constraints,
    ...checkPolicyAgainstSchema(index, facts),
    ...proof,
  ];
}

/**
 * Prove a draft (pure): the merged diagnostics bundle with the three-valued verdict. `refuted` when
 * any hard diagnostic is unsatisfied (the bundle is rejected), `unknown` when the plan stands but
 * some obligation is left to run-time checks, `proven` otherwise.
 */
export function provePlan(
  plan: PlanGraph,
  envelope: TaskEnvelope,
  active: readonly CapabilityRegistration[],
): DiagnosticsBundle {
  const bundle = mergeDiagnostics(
    planDiagnostics(plan, envelope, active),
    envelope.outputContract.constraints ?? [],
  );
  const undecided = [...bundle.failures, ...bundle.warnings, ...bundle.infos].some(
    (d) => d.status === 'unknown' && d.details?.verdict === 'unknown',
  );
  const verdict = bundle.status === 'rejected' ? 'refuted' : undecided ? 'unknown' : 'proven';
  return { ...bundle, verdict };
}
