import type { DiagnosticsBundle } from '@flex/contracts';
import { isPlannerError } from '../plan/planner';
import { planRuleBased } from '../plan/rule-based.planner';
import { planOf, request, sampleEnvelope } from '../plan/test.fixture';
import { ruleBasedFallback } from './rule-based-fallback';

describe('ruleBasedFallback', () => {
  const envelope = sampleEnvelope();

  it('is the rule-based draft, marked with why it stands in', () => {
    const plan = planOf(
      ruleBasedFallback(request(envelope), 'drafts_rejected: the llm drafts were rejected'),
    );
    const plain = planOf(planRuleBased(request(envelope)));
    expect(plan.nodes).toEqual(plain.nodes);
    expect(plan.metadata).toEqual({
      ...plain.metadata,
      fallbackReason: 'drafts_rejected: the llm drafts were rejected',
    });
  });

  it("drafts afresh when the other planner's findings are ones it cannot act on", () => {
    const diagnostics: DiagnosticsBundle = {
      status: 'rejected',
      satisfactionScore: 0,
      failures: [
        {
          severity: 'hard',
          status: 'unsatisfied',
          cause: 'schema_incompatible',
          constraintId: 'llm.only_oddity',
          constraint: 'something only the LLM draft had',
        },
      ],
      warnings: [],
      infos: [],
    };
    const withFindings = request(envelope, { attempt: 3, diagnostics });
    const direct = planRuleBased(withFindings);
    expect(isPlannerError(direct) && direct.code).toBe('PLANNER_UNRESOLVABLE');
    const plan = planOf(ruleBasedFallback(withFindings, 'drafts_rejected: …'));
    expect(plan.metadata).toMatchObject({ plannerId: 'rule-based', fallbackReason: 'drafts_rejected: …' });
    expect(plan.nodes).toEqual(planOf(planRuleBased(request(envelope))).nodes);
  });
});
