import { defaultFacetCompiler } from '@flex/facets';
import { writeVariants } from './content-generator';
import type { CopyVariant, QaRubric } from './facet-values';
import { recruitingContext, recruitingInputs } from './test-support/recruiting-brief';
import { reviewCopy } from './quality-assurance';
import { buildBriefing } from './strategy-manager';

const { writerBrief, planKnobs } = buildBriefing(recruitingInputs, recruitingContext);
const good = writeVariants(
  { writerBrief, planKnobs, toneOfVoice: 'friendly', audienceProfile: recruitingInputs.audienceProfile },
  recruitingContext,
);
const everyCheck: QaRubric = {
  checks: [
    'readability',
    'clarity',
    'objective_fit',
    'policy_risk',
    'brand_voice',
    'tone_alignment',
    'cta_presence',
    'compliance',
  ],
  thresholds: { overall: 0.75, readability: 0.6 },
};
const contract = defaultFacetCompiler().compile(['qaFindings', 'recommendationSet'], 'output');

/** Copy that gets worse one defect at a time. */
const ladder: CopyVariant[][] = [
  good,
  good.map((v) => ({
    ...v,
    body: `${v.body} We leverage a very robust, seamless and holistic paradigm to synergize cross-functional deliverables and basically utilize world-class methodologies across the organisation.`,
  })),
  good.map(() => ({
    headline: 'Opportunities',
    body: 'We leverage a very robust, seamless and holistic paradigm in which interdisciplinary collaboration, organisational excellence and methodological sophistication consistently characterise our institutionalised approach to engineering, which fundamentally differentiates our employer value proposition in an increasingly competitive marketplace.',
    callToAction: 'Click here',
  })),
  good.map(() => ({
    headline: 'BEST JOBS EVER!!!',
    body: 'We are the best employer in the world and we guarantee 100% career success. Our AI will replace human reviewers so you never fail. Unbeatable salaries!!!',
    callToAction: 'Click here',
  })),
];

describe('QualityAssuranceAgent.contentReview', () => {
  it('produces outputs that match the catalog facets exactly', () => {
    for (const copy of ladder)
      expect(
        contract.validate(reviewCopy({ copyVariants: copy, writerBrief, qaRubric: everyCheck })),
      ).toEqual([]);
  });

  it("passes the copywriter's variants for the same brief", () => {
    const { qaFindings, recommendationSet } = reviewCopy({
      copyVariants: good,
      writerBrief,
      qaRubric: everyCheck,
    });
    expect(qaFindings.overallStatus).toBe('pass');
    expect(qaFindings.overallScore).toBeGreaterThan(0.9);
    expect(qaFindings.issues.filter((i) => i.severity !== 'low')).toEqual([]);
    expect(recommendationSet.filter((r) => r.severity !== 'low')).toEqual([]);
  });

  it('moves overallScore down as the copy gets worse', () => {
    const scores = ladder.map(
      (copy) => reviewCopy({ copyVariants: copy, writerBrief, qaRubric: everyCheck }).qaFindings.overallScore,
    );
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThan(scores[i - 1]);
    expect(scores[scores.length - 1]).toBeLessThan(0.5);
  });

  it('scores readability on sentence and word length', () => {
    const [before, after] = [ladder[0], ladder[2]].map(
      (copy) =>
        reviewCopy({ copyVariants: copy, writerBrief, qaRubric: { checks: ['readability'], thresholds: {} } })
          .qaFindings,
    );
    expect(after.scores.readability).toBeLessThan(before.scores.readability as number);
    expect(
      after.issues.some((i) => i.check === 'readability' && /sentences average \d+ words/.test(i.message)),
    ).toBe(true);
  });

  it('flags risky claims as high-severity policy issues, fails the review, and recommends the fix', () => {
    const { qaFindings, recommendationSet } = reviewCopy({
      copyVariants: ladder[3],
      writerBrief,
      qaRubric: everyCheck,
    });
    expect(qaFindings.overallStatus).toBe('fail');
    expect(qaFindings.scores.policy_risk).toBe(0);
    const messages = qaFindings.issues
      .filter((i) => i.check === 'policy_risk')
      .map((i) => i.message)
      .join('\n');
    expect(messages).toMatch(/guarantee/);
    expect(messages).toMatch(/replace human reviewers/);
    expect(messages).toMatch(/best employer in the world/);
    expect(messages).toMatch(/100%/);
    expect(recommendationSet[0].severity).toBe('high');
    expect(
      recommendationSet.some((r) => r.recommendation.includes('Remove or substantiate "guarantee"')),
    ).toBe(true);
  });

  it("checks the brief's prohibitions", () => {
    const salary = good.map((v, i) =>
      i === 1 ? { ...v, body: `${v.body} Our salaries beat every offer in Berlin.` } : v,
    );
    const { qaFindings } = reviewCopy({
      copyVariants: salary,
      writerBrief,
      qaRubric: { checks: ['compliance'], thresholds: {} },
    });
    expect(qaFindings.scores).toEqual({ compliance: 0.75 });
    expect(qaFindings.issues[0]).toMatchObject({ check: 'compliance', severity: 'high', variantIndex: 1 });
    expect(qaFindings.issues[0].message).toContain('Avoid claims about salaries');
  });

  it('scores objective fit by overlap with the brief', () => {
    const offTopic: CopyVariant[] = [
      {
        headline: 'Our summer picnic recap',
        body: 'The weather was lovely and the sandwiches were tasty. Everyone enjoyed the lake and the music until sunset.',
        callToAction: 'See the photos',
      },
    ];
    const fit = (copy: CopyVariant[]) =>
      reviewCopy({ copyVariants: copy, writerBrief, qaRubric: { checks: ['objective_fit'], thresholds: {} } })
        .qaFindings.scores.objective_fit as number;
    expect(fit(offTopic)).toBeLessThan(0.35);
    expect(fit(good)).toBeGreaterThan(0.8);
  });

  it('scores only the checks the rubric lists and asks for a revision below a threshold', () => {
    const { qaFindings } = reviewCopy({
      copyVariants: ladder[1],
      writerBrief,
      qaRubric: { checks: ['clarity', 'readability'], thresholds: { clarity: 0.95, overall: 0.5 } },
    });
    expect(Object.keys(qaFindings.scores).sort()).toEqual(['clarity', 'readability']);
    expect(qaFindings.overallStatus).toBe('needs_revision');
    expect(qaFindings.issues.some((i) => i.check === 'clarity' && /threshold 0.95/.test(i.message))).toBe(
      true,
    );
  });

  it('is deterministic', () => {
    const input = { copyVariants: ladder[2], writerBrief, qaRubric: everyCheck };
    expect(reviewCopy(input)).toEqual(reviewCopy(input));
  });
});
