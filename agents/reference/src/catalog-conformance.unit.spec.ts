import fc from 'fast-check';
import { defaultFacetCompiler } from '@flex/facets';
import { writeVariants } from './content-generator';
import type { CopyVariant, QaCheck, ToneOfVoice } from './facet-values';
import { reviewCopy } from './quality-assurance';
import { buildBriefing } from './strategy-manager';

const compiler = defaultFacetCompiler();
const TONES: ToneOfVoice[] = [
  'friendly',
  'professional',
  'inspiring',
  'confident',
  'supportive',
  'playful',
  'authoritative',
  'empathetic',
  'bold',
  'formal',
  'casual',
];
const CHECKS: QaCheck[] = [
  'readability',
  'clarity',
  'objective_fit',
  'policy_risk',
  'brand_voice',
  'tone_alignment',
  'cta_presence',
  'compliance',
];

const text = (max = 400) => fc.string({ minLength: 1, maxLength: max, unit: 'grapheme' });
const sentence = fc.oneof(
  text(),
  fc.constantFrom(
    'Variant A should highlight team culture.',
    'Variant 2: the roadmap',
    'Highlight the launch date.',
    'Avoid claims about pricing.',
    'Write three variants.',
    'Keep it short.',
    'We guarantee 100% uptime, the best in the world.',
  ),
);
const audience = fc.record({
  persona: text(100),
  segments: fc.array(text(50), { maxLength: 4 }),
  regions: fc.option(fc.array(text(30), { maxLength: 3 }), { nil: undefined }),
});
const assets = fc.array(
  fc.oneof(
    fc.record({
      type: fc.constant('data'),
      payload: fc.dictionary(
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.oneof(
          text(),
          fc.integer(),
          fc.array(text(40), { maxLength: 3 }),
          fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), text(80), { maxKeys: 4 }),
        ),
        { maxKeys: 8 },
      ),
    }),
    fc.record({
      type: fc.constant('document'),
      payload: fc.record({ title: text(100), content: text(2_000) }),
    }),
    fc.record({ type: fc.constant('link'), payload: fc.record({ url: fc.webUrl() }) }),
  ),
  { maxLength: 5 },
);

describe('reference agents against the facet catalog, on arbitrary valid inputs', () => {
  it('every output validates against its catalog facet', () => {
    fc.assert(
      fc.property(
        fc.record({
          objective: text(600),
          successCriteria: fc.option(fc.array(text(200), { maxLength: 5 }), { nil: undefined }),
        }),
        audience,
        fc.constantFrom(...TONES),
        assets,
        fc.array(sentence, { maxLength: 6 }),
        fc.record({
          variantCount: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
          length: fc.option(fc.constantFrom('short', 'medium', 'long' as const), { nil: undefined }),
        }),
        fc.uniqueArray(fc.constantFrom(...CHECKS), { minLength: 1 }),
        (objectiveBrief, audienceProfile, toneOfVoice, assetBundle, specialInstructions, knobs, checks) => {
          const inputs = { objectiveBrief, audienceProfile, toneOfVoice, assetBundle };
          for (const [facet, value] of Object.entries(inputs))
            expect(compiler.validateFacet(facet, value)).toEqual([]);
          const context = { objective: objectiveBrief.objective, specialInstructions };
          const briefing = buildBriefing(inputs, context);
          expect(
            compiler.compile(['writerBrief', 'planKnobs', 'strategicRationale'], 'output').validate(briefing),
          ).toEqual([]);

          const planKnobs = {
            ...briefing.planKnobs,
            ...(knobs.variantCount ? { variantCount: knobs.variantCount } : {}),
            ...(knobs.length ? { length: knobs.length } : {}),
          };
          const copyVariants: CopyVariant[] = writeVariants(
            { writerBrief: briefing.writerBrief, planKnobs, toneOfVoice, audienceProfile },
            context,
          );
          expect(compiler.compile(['copyVariants'], 'output').validate({ copyVariants })).toEqual([]);
          expect(copyVariants).toHaveLength(planKnobs.variantCount as number);

          const review = reviewCopy({
            copyVariants,
            writerBrief: briefing.writerBrief,
            qaRubric: { checks, thresholds: { overall: 0.7 } },
          });
          expect(compiler.compile(['qaFindings', 'recommendationSet'], 'output').validate(review)).toEqual(
            [],
          );
        },
      ),
      { numRuns: 150, seed: 4242 },
    );
  });
});
