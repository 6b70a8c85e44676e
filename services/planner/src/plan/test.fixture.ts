import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  normalizeEnvelope,
  REFERENCE_INVENTORY,
  type CapabilityRegistration,
  type PlanGraph,
  type PlannerError,
  type PlannerOutput,
  type TaskEnvelope,
} from '@flex/contracts';
import { isPlannerError, type PlannerRequest } from './planner';

/** The reference agents' registrations (spec 003 §11 "Current Inventory"). */
export const registrations: CapabilityRegistration[] = [...REFERENCE_INVENTORY];

/** A spec sample envelope from `examples/`, patched, then normalized as the gateway does. */
export function sampleEnvelope(
  patch: (raw: any) => void = () => undefined,
  file = 'envelope.json',
): TaskEnvelope {
  const raw = JSON.parse(readFileSync(join(__dirname, '../../../../examples', file), 'utf8'));
  patch(raw);
  const result = normalizeEnvelope(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.envelope;
}

/** Three variants with QA required (the spec's second sample shape). */
export function threeVariantsWithQa(): TaskEnvelope {
  return sampleEnvelope((raw) => {
    raw.outputContract.schema.properties.copyVariants.minItems = 3;
    raw.outputContract.schema.properties.copyVariants.maxItems = 3;
    raw.inputs.variantCount = 3;
    raw.specialInstructions = ['Variant A: culture.', 'Variant B: growth.', 'Variant C: benefits.'];
    raw.policies = {
      planner: {
        topology: { variantCount: 3 },
        selection: { require: ['QualityAssuranceAgent.contentReview'] },
      },
    };
    raw.outputContract.constraints = [
      { constraintId: 'qa_pass', level: 'hard', expr: { '>=': [{ var: 'qaFindings.overallScore' }, 0.6] } },
    ];
  });
}

export function request(envelope: TaskEnvelope, extra: Partial<PlannerRequest> = {}): PlannerRequest {
  return { envelope, capabilities: registrations, planVersion: 1, attempt: 1, ...extra };
}

/** The plan of a successful answer; fails the test with the error otherwise. */
export function planOf(result: PlannerOutput | PlannerError): PlanGraph {
  if (isPlannerError(result)) throw new Error(`${result.code}: ${result.message}`);
  return result.plan;
}

export const shape = (plan: PlanGraph) => plan.nodes.map((n) => [n.id, n.kind, n.capabilityId ?? null]);
