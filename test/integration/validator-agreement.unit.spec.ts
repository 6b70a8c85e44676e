import type { CapabilityRegistration } from '@flex/contracts';
import { provePlan } from '../../services/validator/src/validation/prove-plan';
import { planRuleBased } from '../../services/planner/src/plan/rule-based.planner';
import {
  planOf,
  registrations,
  request,
  sampleEnvelope,
  threeVariantsWithQa,
} from '../../services/planner/src/plan/test.fixture';

/** The rule-based planner's drafts pass the validator's proof as they are: no revise loop needed. */
describe('rule-based drafts and the validator agree', () => {
  const rationale: CapabilityRegistration = {
    ...registrations[0],
    capabilityId: 'ContentGeneratorAgent.rationale',
    displayName: 'Rationale writer',
    inputContract: ['writerBrief'],
    outputContract: ['strategicRationale'],
  };
  const cases: Array<[string, ReturnType<typeof sampleEnvelope>, CapabilityRegistration[]]> = [
    ['the spec sample (two variants)', sampleEnvelope(), registrations],
    ['three variants with QA required', threeVariantsWithQa(), registrations],
    [
      'a required validation kind',
      sampleEnvelope(
        (raw) =>
          (raw.policies = {
            brandVoice: 'inspiring',
            planner: { topology: { requiredKinds: ['validation'] } },
          }),
      ),
      registrations,
    ],
    [
      'a constraint on copyVariants',
      sampleEnvelope(
        (raw) =>
          (raw.outputContract.constraints = [
            { constraintId: 'two', level: 'hard', expr: { '>=': [{ var: 'copyVariants.length' }, 2] } },
          ]),
      ),
      registrations,
    ],
    [
      'a transformation merging two producers',
      sampleEnvelope((raw) => (raw.outputContract.schema.properties.strategicRationale = { type: 'object' })),
      registrations,
    ],
    [
      'a derived capability',
      sampleEnvelope(
        (raw) =>
          (raw.policies = {
            brandVoice: 'inspiring',
            planner: { selection: { forbid: ['ContentGeneratorAgent.linkedinVariants'] } },
          }),
      ),
      [...registrations, rationale],
    ],
  ];

  it.each(cases)('%s', (_name, envelope, capabilities) => {
    const plan = planOf(planRuleBased(request(envelope, { capabilities })));
    const bundle = provePlan(plan, envelope, capabilities);
    expect(bundle.failures.filter((d) => d.status === 'unsatisfied')).toEqual([]);
    expect(bundle.status).not.toBe('rejected');
  });
});
