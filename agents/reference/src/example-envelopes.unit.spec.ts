import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInvocationContext } from '@flex/agent-sdk';
import { normalizeEnvelope, type TaskEnvelope } from '@flex/contracts';
import { envelopeFacets } from '@flex/facets';
import { writeVariants } from './content-generator';
import type { AudienceProfile, CopyVariant, ToneOfVoice } from './facet-values';
import { reviewCopy } from './quality-assurance';
import { buildBriefing, type BriefingInputs } from './strategy-manager';

/** The repository's example envelopes, through the facets the executor would hand each agent. */
function pipeline(file: string) {
  const raw = JSON.parse(readFileSync(join(__dirname, '../../../examples', file), 'utf8'));
  const normalized = normalizeEnvelope(raw) as { ok: boolean; envelope: TaskEnvelope };
  expect(normalized.ok).toBe(true);
  const envelope = normalized.envelope;
  const facets = envelopeFacets(envelope).values;
  const context: AgentInvocationContext = {
    objective: envelope.objective,
    specialInstructions: envelope.specialInstructions,
    inputs: envelope.inputs,
  };
  const briefing = buildBriefing(facets as BriefingInputs, context);
  const copyVariants = writeVariants(
    {
      writerBrief: briefing.writerBrief,
      planKnobs: briefing.planKnobs,
      toneOfVoice: facets.toneOfVoice as ToneOfVoice,
      audienceProfile: facets.audienceProfile as AudienceProfile,
    },
    context,
  );
  const review = reviewCopy({
    copyVariants,
    writerBrief: briefing.writerBrief,
    qaRubric: {
      checks: ['readability', 'clarity', 'objective_fit', 'policy_risk', 'compliance'],
      thresholds: { overall: 0.7 },
    },
  });
  return { briefing, copyVariants, review };
}

const text = (v: CopyVariant) => `${v.headline} ${v.body} ${v.callToAction}`;

describe('the example envelopes through strategy → copy → QA', () => {
  it('envelope.json: variant A is about team culture, B about career growth, both grounded in the company profile', () => {
    const { briefing, copyVariants, review } = pipeline('envelope.json');
    expect(briefing.writerBrief.keyPoints).toEqual(
      expect.arrayContaining([
        'Company: AwesomePoster.',
        'Core value: Human-first automation.',
        'Recent news: Summer retreat in Tahoe.',
      ]),
    );
    expect(briefing.writerBrief.keyPoints.some((p) => p.startsWith('Success criterion: Variant'))).toBe(
      false,
    );
    expect(briefing.planKnobs).toMatchObject({ variantCount: 2, ctaFocus: 'apply' });
    expect(copyVariants).toHaveLength(2);
    expect(copyVariants[0].headline.toLowerCase()).toContain('team culture');
    expect(copyVariants[1].headline.toLowerCase()).toContain('career growth opportunities');
    for (const v of copyVariants) expect(text(v)).toMatch(/AwesomePoster[\s\S]*human-first automation/);
    expect(review.qaFindings.overallStatus).toBe('pass');
  });

  it('akkuro-envelope.json: facts come from the raw inputs, the audit trail is highlighted, human reviewers are never mentioned', () => {
    const { briefing, copyVariants, review } = pipeline('akkuro-envelope.json');
    expect(briefing.writerBrief.keyPoints).toEqual(
      expect.arrayContaining([
        'Company: Akkuro.',
        'Core value: AI compliance copilots for regulated teams.',
        'Highlight: the new real-time audit trail feature.',
      ]),
    );
    expect(briefing.writerBrief.constraints).toContain('Avoid claims about replacing human reviewers.');
    expect(briefing.planKnobs.ctaFocus).toBe('learn_more');
    expect(copyVariants[0].headline).toContain('real-time audit trail');
    expect(copyVariants[1].headline).toContain("Akkuro's AI compliance tooling launch");
    expect(copyVariants.map(text).join(' ')).not.toMatch(/human reviewers|replac/i);
    expect(review.qaFindings.scores.compliance).toBe(1);
    expect(review.qaFindings.overallStatus).toBe('pass');
  });
});
