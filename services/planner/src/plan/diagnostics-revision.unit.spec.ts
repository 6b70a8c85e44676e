import type { DiagnosticsBundle, PlanDiagnostic, PlanGraph, TaskEnvelope } from '@flex/contracts';
import { planRuleBased } from './rule-based.planner';
import { planOf, request, sampleEnvelope } from './test.fixture';

const hard = (d: Partial<PlanDiagnostic> & Pick<PlanDiagnostic, 'cause'>): PlanDiagnostic => ({
  severity: 'hard',
  status: 'unsatisfied',
  ...d,
});
const rejected = (...failures: PlanDiagnostic[]): DiagnosticsBundle => ({
  status: 'rejected',
  satisfactionScore: 0,
  failures,
  warnings: [],
  infos: [],
});
const kinds = (plan: PlanGraph) => plan.nodes.map((n) => n.kind);

/** A stand-in for the validator's enforcer rule: every constraint needs a node that enforces it. */
function validate(plan: PlanGraph, envelope: TaskEnvelope): DiagnosticsBundle {
  const failures = (envelope.outputContract.constraints ?? [])
    .filter((c) => !plan.nodes.some((n) => n.enforces?.includes(c.constraintId as string)))
    .map((c) =>
      hard({
        cause: 'missing_enforcer',
        constraintId: c.constraintId,
        suggestion: `Add a node that produces and checks ${c.constraintId}.`,
      }),
    );
  return failures.length
    ? rejected(...failures)
    : { status: 'accepted', satisfactionScore: 1, failures: [], warnings: [], infos: [] };
}

describe('the rule-based planner learns from rejection', () => {
  const qaNote = sampleEnvelope((raw) => {
    raw.outputContract.constraints = [
      { constraintId: 'qa_noted', level: 'informational', expr: { '!!': [{ var: 'qaFindings.verdict' }] } },
    ];
  });

  it('converges on the second attempt: diagnostics in, fixed draft out', () => {
    const first = planOf(planRuleBased(request(qaNote)));
    const verdict = validate(first, qaNote);
    expect(verdict.status).toBe('rejected');
    const second = planOf(planRuleBased(request(qaNote, { attempt: 2, diagnostics: verdict })));
    expect(validate(second, qaNote).status).toBe('accepted');
    expect(second.nodes.find((n) => n.kind === 'validation')).toMatchObject({
      capabilityId: 'QualityAssuranceAgent.contentReview',
      enforces: ['qa_noted'],
    });
    expect(second.metadata.inputHash).not.toBe(first.metadata.inputHash);
  });

  it('inserts the producer a missing_producer diagnostic names', () => {
    const diagnostics = rejected(
      hard({
        cause: 'missing_producer',
        capabilityId: 'QualityAssuranceAgent.contentReview',
        details: { facet: 'qaFindings' },
      }),
    );
    const plan = planOf(planRuleBased(request(sampleEnvelope(), { diagnostics })));
    expect(plan.nodes.map((n) => n.capabilityId)).toContain('QualityAssuranceAgent.contentReview');
  });

  it('drops a forbidden kind and adds a required one', () => {
    const forbidden = rejected(
      hard({
        cause: 'schema_incompatible',
        constraintId: 'structure.forbidden_kind',
        nodeId: 'branch-1',
        constraint: 'policy forbids branch nodes',
        details: { check: 'forbidden_kind' },
      }),
    );
    expect(kinds(planOf(planRuleBased(request(sampleEnvelope(), { diagnostics: forbidden }))))).not.toContain(
      'branch',
    );
    const required = rejected(
      hard({
        cause: 'schema_incompatible',
        constraintId: 'structure.required_kind',
        constraint: 'policy requires a transformation node',
        details: { check: 'required_kind' },
      }),
    );
    expect(kinds(planOf(planRuleBased(request(sampleEnvelope(), { diagnostics: required }))))).toContain(
      'transformation',
    );
  });

  it('reconciles the variant count with the schema: up front (the contract binds), and again on schema_incompatible', () => {
    const three = sampleEnvelope((raw) => (raw.inputs.variantCount = 3));
    expect(planOf(planRuleBased(request(three))).metadata.branchCount).toBe(2);
    const diagnostics = rejected(
      hard({
        cause: 'schema_incompatible',
        constraintId: 'variant_count',
        constraint: 'variantCount 3 exceeds copyVariants maxItems 2',
        nodeId: 'execution-1',
      }),
    );
    const result = planRuleBased(request(three, { diagnostics }));
    expect(planOf(result).metadata.branchCount).toBe(2);
    const topology = sampleEnvelope((raw) => {
      delete raw.outputContract.schema.properties.copyVariants.minItems;
      delete raw.outputContract.schema.properties.copyVariants.maxItems;
      raw.inputs.variantCount = 3;
    });
    expect(planOf(planRuleBased(request(topology))).metadata.branchCount).toBe(3);
  });

  it('steers away from a capability the validator found unavailable', () => {
    const diagnostics = rejected(
      hard({
        cause: 'missing_producer',
        constraintId: 'structure.capability_unavailable',
        capabilityId: 'Gone.agent',
        details: { check: 'capability_unavailable' },
      }),
    );
    expect(planRuleBased(request(sampleEnvelope(), { diagnostics }))).toMatchObject({
      plan: { nodes: expect.any(Array) },
    });
  });

  it('fails with PLANNER_UNRESOLVABLE on a finding it cannot act on, instead of looping', () => {
    const diagnostics = rejected(
      hard({
        cause: 'schema_incompatible',
        constraintId: 'structure.caller_schema',
        constraint: '/properties/x: unsupported keyword',
        details: { check: 'caller_schema' },
      }),
    );
    const result = planRuleBased(request(sampleEnvelope(), { attempt: 2, diagnostics }));
    expect(result).toMatchObject({
      code: 'PLANNER_UNRESOLVABLE',
      retryable: false,
      message: expect.stringContaining('structure.caller_schema: /properties/x: unsupported keyword'),
    });
  });

  it('fails with PLANNER_UNRESOLVABLE when a diagnostic contradicts the policy', () => {
    const env = sampleEnvelope(
      (raw) => (raw.policies = { planner: { topology: { forbiddenKinds: ['validation'] } } }),
    );
    const diagnostics = rejected(
      hard({
        cause: 'schema_incompatible',
        constraintId: 'structure.required_kind',
        details: { check: 'required_kind', kind: 'validation' },
      }),
    );
    expect(planRuleBased(request(env, { diagnostics }))).toMatchObject({
      code: 'PLANNER_UNRESOLVABLE',
      message: 'the plan must both have and not have validation nodes',
    });
    const bounds = sampleEnvelope((raw) =>
      Object.assign(raw.outputContract.schema.properties.copyVariants, { minItems: 4, maxItems: 2 }),
    );
    const variants = rejected(
      hard({
        cause: 'schema_incompatible',
        constraint: 'variantCount cannot meet minItems 4 and maxItems 2',
      }),
    );
    expect(planRuleBased(request(bounds, { diagnostics: variants }))).toMatchObject({
      code: 'PLANNER_UNRESOLVABLE',
    });
  });

  it('ignores findings that are not hard failures', () => {
    const soft: DiagnosticsBundle = {
      status: 'accepted_with_findings',
      satisfactionScore: 0.5,
      failures: [],
      warnings: [{ severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft' }],
      infos: [],
    };
    expect(kinds(planOf(planRuleBased(request(sampleEnvelope(), { diagnostics: soft }))))).toEqual(
      kinds(planOf(planRuleBased(request(sampleEnvelope())))),
    );
  });
});
