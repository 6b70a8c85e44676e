import { DiagnosticsBundleSchema, type PlanDiagnostic } from '@flex/contracts';
import { plannerError } from './planner';
import { plannerErrorDiagnostics } from './planner-error.diagnostics';
import { sampleEnvelope } from './test.fixture';

const envelope = sampleEnvelope();

describe('plannerErrorDiagnostics: a planning failure in the one bundle shape', () => {
  it('passes on the validator findings the planner could not act on', () => {
    const finding: PlanDiagnostic = {
      severity: 'hard',
      status: 'unsatisfied',
      cause: 'missing_enforcer',
      constraintId: 'min_qa',
      suggestion: 'Add QA.',
    };
    const bundle = plannerErrorDiagnostics(
      plannerError('PLANNER_UNRESOLVABLE', 'cannot act on min_qa', { unresolved: [finding, { junk: true }] }),
      envelope,
    );
    expect(bundle).toEqual({
      status: 'rejected',
      satisfactionScore: 0,
      failures: [finding],
      warnings: [],
      infos: [],
    });
  });

  it('names a node kind no capability can fill, and the facets that would fill it', () => {
    const qa = {
      capabilityId: 'QualityAssuranceAgent.contentReview',
      status: 'deregistered' as const,
      outputContract: ['qaFindings'],
    };
    const bundle = plannerErrorDiagnostics(
      plannerError('PLANNER_NO_CAPABILITIES', 'no QA', { requiredKinds: ['validation'] }),
      envelope,
      [qa],
    );
    expect(bundle.failures).toEqual([
      expect.objectContaining({
        constraintId: 'policy.topology.requiredKinds',
        constraint: 'a validation node (qaFindings or recommendationSet) can be planned',
        suggestion:
          'QualityAssuranceAgent.contentReview is registered but deregistered: start its agent so it heartbeats again.',
        details: {
          check: 'required_kind',
          kind: 'validation',
          facets: ['qaFindings', 'recommendationSet'],
          path: 'policies.planner.topology.requiredKinds',
        },
      }),
    ]);
  });

  it.each<[string, ReturnType<typeof plannerError>, Partial<PlanDiagnostic>]>([
    [
      'an output contract naming no facet',
      plannerError('PLANNER_INVALID_GOAL', 'the output contract names no facet to produce'),
      {
        cause: 'schema_incompatible',
        constraintId: 'planner.planner_invalid_goal',
        details: expect.objectContaining({ path: '/properties' }),
      },
    ],
    [
      'an empty registry',
      plannerError('PLANNER_NO_CAPABILITIES', 'no capability is registered and active'),
      {
        cause: 'missing_producer',
        suggestion: expect.stringContaining('POST /api/v1/flex/capabilities/register'),
      },
    ],
    [
      'a planner that timed out',
      plannerError('PLANNER_TIMEOUT', 'no answer within 300 ms', {}, true),
      {
        cause: 'missing_producer',
        constraint: 'no answer within 300 ms',
        suggestion: 'Retry the run; the planner may succeed later.',
      },
    ],
  ])('says what to change for %s', (_name, error, expected) => {
    const bundle = plannerErrorDiagnostics(error, envelope);
    expect(DiagnosticsBundleSchema.parse(bundle)).toEqual(bundle);
    expect(bundle.failures).toEqual([
      expect.objectContaining({ severity: 'hard', status: 'unsatisfied', ...expected }),
    ]);
    expect(bundle.satisfactionScore).toBe(0);
  });
});
