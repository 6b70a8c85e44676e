import type { AgentInvocationContext } from '@flex/agent-sdk';
import type { BriefingInputs } from '../strategy-manager';

/** A recruiting brief used across the reference agents' specs (not exported from the package). */
export const recruitingInputs: BriefingInputs = {
  objectiveBrief: {
    objective: 'Recruit senior backend engineers for the Berlin platform team.',
    successCriteria: ['Qualified applicants mention the post', 'Engineers share the post with peers'],
  },
  audienceProfile: {
    persona: 'Senior backend engineers',
    segments: ['fintech', 'developer tooling'],
    regions: ['Germany'],
  },
  toneOfVoice: 'friendly',
  assetBundle: [
    {
      type: 'data',
      payload: {
        kind: 'company_profile',
        name: 'Acme Robotics',
        coreValue: 'Ownership at every level',
        recentEvent: 'Acme Robotics opened a new engineering hub in Berlin',
        benefits: 'Four-day work week, learning budget of 2,000 EUR per year and a mentoring programme',
      },
    },
    {
      type: 'document',
      payload: {
        title: 'Engineering handbook',
        content: 'Every engineer owns a service end to end. Teams pair weekly with product.',
      },
    },
  ],
};

export const recruitingContext: AgentInvocationContext = {
  objective: 'Recruit senior backend engineers for the Berlin platform team.',
  specialInstructions: [
    'Variant A should highlight team culture. Variant B should highlight career growth',
    'Avoid claims about salaries.',
  ],
};
