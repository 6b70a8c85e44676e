import type { AgentInvocation } from '@flex/agent-sdk';
import type { LlmBrief } from './llm-agent';

/** What each reference agent asks of the model, keyed by capability id. */
export const REFERENCE_BRIEFS: Readonly<Record<string, LlmBrief>> = Object.freeze({
  'StrategyManagerAgent.briefing': () =>
    'Turn the objective, audience profile, tone of voice and assets into a writer brief (angle, key points, constraints), ' +
    'plan knobs (variantCount 1 to 5, ctaFocus, length) and a strategic rationale (northStar, whyItWorks, risks). ' +
    'Key points must come from the supplied facts; special instructions become constraints.',
  'ContentGeneratorAgent.linkedinVariants': (invocation: AgentInvocation) => {
    const knobs = invocation.inputs.planKnobs as
      { variantCount?: number; ctaFocus?: string; length?: string } | undefined;
    const count = Math.min(5, Math.max(1, Math.round(knobs?.variantCount ?? 2)));
    return (
      `Write exactly ${count} LinkedIn post variant${count === 1 ? '' : 's'} from the writer brief, each with a headline, a body and a call to action` +
      `${knobs?.ctaFocus ? ` focused on "${knobs.ctaFocus}"` : ''}${knobs?.length ? `, ${knobs.length} length` : ''}. ` +
      'Each variant takes a different angle; respect the tone of voice, the audience and every constraint of the brief.'
    );
  },
  'QualityAssuranceAgent.contentReview': () =>
    'Review every copy variant against the writer brief and the QA rubric. Score readability, clarity, objective fit and policy risk, ' +
    'each from 0 (bad) to 1 (good; for policy risk, 1 means no risk), set overallScore in 0..1 and overallStatus from the rubric thresholds, ' +
    'list concrete issues, and give prioritised recommendations with a severity and a rationale. Worse copy must score lower.',
});
