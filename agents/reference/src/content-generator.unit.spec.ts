import fc from 'fast-check';
import { codePointLength, silentLogger, type AgentInvocation } from '@flex/agent-sdk';
import { compileUntrustedSchema, defaultFacetCompiler } from '@flex/facets';
import { contentGeneratorAgent, writeVariants, type VariantInputs } from './content-generator';
import type { CopyVariant } from './facet-values';
import { recruitingContext, recruitingInputs } from './test-support/recruiting-brief';
import { buildBriefing } from './strategy-manager';
import { keywords, sentences, truncate } from './text';

const briefing = buildBriefing(recruitingInputs, recruitingContext);
const inputs: VariantInputs = {
  writerBrief: briefing.writerBrief,
  planKnobs: briefing.planKnobs,
  toneOfVoice: 'friendly',
  audienceProfile: recruitingInputs.audienceProfile,
};
const all = (v: CopyVariant) => `${v.headline} ${v.body} ${v.callToAction}`.toLowerCase();
const contract = defaultFacetCompiler().compile(['copyVariants'], 'output');

describe('ContentGeneratorAgent.linkedinVariants', () => {
  const variants = writeVariants(inputs, recruitingContext);

  it('writes as many variants as planKnobs.variantCount asks, matching the catalog facet', () => {
    expect(variants).toHaveLength(2);
    expect(contract.validate({ copyVariants: variants })).toEqual([]);
    for (const count of [1, 3, 5]) {
      const out = writeVariants(
        { ...inputs, planKnobs: { ...inputs.planKnobs, variantCount: count } },
        recruitingContext,
      );
      expect(out).toHaveLength(count);
      expect(contract.validate({ copyVariants: out })).toEqual([]);
    }
  });

  it('leads each variant with its own direction from the special instructions', () => {
    const [a, b] = variants;
    expect(a.headline.toLowerCase()).toContain('team culture');
    expect(b.headline.toLowerCase()).toContain('career growth');
    expect(a.body.toLowerCase()).toContain('team culture');
    expect(b.body.toLowerCase()).toContain('career growth');
    expect(all(a)).not.toContain('career growth');
    expect(all(b)).not.toContain('team culture');
  });

  it('writes genuinely distinct variants', () => {
    const several = writeVariants({ ...inputs, planKnobs: { variantCount: 4 } }, recruitingContext);
    for (let i = 0; i < several.length; i++) {
      for (let j = i + 1; j < several.length; j++) {
        expect(several[i].headline).not.toBe(several[j].headline);
        expect(several[i].callToAction).not.toBe(several[j].callToAction);
        expect(sharedSentences(several[i].body, several[j].body)).toBeLessThanOrEqual(2);
        expect(wordOverlap(several[i].body, several[j].body)).toBeLessThan(0.6);
      }
    }
  });

  it("uses the brief's facts and speaks to the audience", () => {
    for (const v of variants) {
      expect(v.body).toContain('Acme Robotics');
      expect(v.body).toContain('ownership at every level');
      expect(v.body.toLowerCase()).toContain('senior backend engineers');
      expect(v.body).toContain('fintech and developer tooling');
    }
    expect(variants[1].body).toContain('learning budget');
  });

  it('follows the tone', () => {
    const professional = writeVariants({ ...inputs, toneOfVoice: 'professional' }, recruitingContext);
    const inspiring = writeVariants({ ...inputs, toneOfVoice: 'inspiring' }, recruitingContext);
    expect(new Set([variants[0].headline, professional[0].headline, inspiring[0].headline]).size).toBe(3);
    expect(professional[0].headline.toLowerCase()).toContain('team culture');
  });

  it('follows the CTA focus and the length knob', () => {
    expect(variants.every((v) => /^(apply|explore our open roles)/i.test(v.callToAction))).toBe(true);
    const demo = writeVariants(
      { ...inputs, planKnobs: { ...inputs.planKnobs, ctaFocus: 'book_demo' } },
      recruitingContext,
    );
    expect(demo.map((v) => v.callToAction).join(' ')).toMatch(/demo|trial/i);
    const short = writeVariants(
      { ...inputs, planKnobs: { ...inputs.planKnobs, length: 'short' } },
      recruitingContext,
    );
    const long = writeVariants(
      { ...inputs, planKnobs: { ...inputs.planKnobs, length: 'long' } },
      recruitingContext,
    );
    expect(short[0].body.length).toBeLessThan(long[0].body.length);
  });

  it("takes the directions from the brief's constraints when the envelope gives none", () => {
    const out = writeVariants(inputs, { objective: 'Recruit engineers' });
    expect(out[0].headline.toLowerCase()).toContain('team culture');
    expect(out[1].headline.toLowerCase()).toContain('career growth');
  });

  it('leaves out facts that would break a brief constraint', () => {
    const brief = {
      ...inputs.writerBrief,
      keyPoints: [...inputs.writerBrief.keyPoints, 'Pay: Salaries above the Berlin market rate.'],
    };
    const out = writeVariants(
      { ...inputs, writerBrief: brief, planKnobs: { variantCount: 3, length: 'long' } },
      recruitingContext,
    );
    expect(out.map(all).join(' ')).not.toContain('salaries');
  });

  it('is deterministic', () => {
    expect(writeVariants(inputs, recruitingContext)).toEqual(variants);
  });
});

describe('ContentGeneratorAgent.linkedinVariants: the node contract and repair feedback', () => {
  const binding = {
    type: 'array',
    minItems: 3,
    maxItems: 3,
    items: {
      type: 'object',
      properties: {
        headline: { maxLength: 30 },
        body: { maxLength: 120 },
        callToAction: { enum: ['Apply now', 'See open roles'] },
      },
    },
  };
  const outputSchema = {
    ...contract.schema,
    properties: {
      copyVariants: {
        allOf: [(contract.schema.properties as Record<string, unknown>).copyVariants, binding],
      },
    },
  };
  const invoke = (extra: Partial<AgentInvocation>) =>
    contentGeneratorAgent.handle(
      {
        runId: 'r',
        nodeId: 'n',
        attempt: 1,
        idempotencyKey: 'k',
        capabilityId: 'ContentGeneratorAgent.linkedinVariants',
        inputs: { ...inputs },
        outputFacets: ['copyVariants'],
        context: recruitingContext,
        ...extra,
      },
      {
        capabilityId: 'c',
        instanceId: 'i',
        idempotencyKey: 'k',
        signal: new AbortController().signal,
        logger: silentLogger,
        reportUsage: () => undefined,
      },
    );

  it('meets the bound count, string lengths (in code points) and allowed values of outputSchema', async () => {
    const out = (await invoke({ outputSchema })) as { copyVariants: CopyVariant[] };
    expect(out.copyVariants).toHaveLength(3);
    expect(compileUntrustedSchema(binding)(out.copyVariants)).toEqual([]);
    expect(contract.validate(out)).toEqual([]);
    expect(out.copyVariants.every((v) => v.body.endsWith('…'))).toBe(true);
  });

  it('fixes what feedback names: a length bound on every item, a maximum count', async () => {
    const feedback = {
      attempt: 1,
      errors: [
        {
          path: '/copyVariants/0/body',
          keyword: 'maxLength',
          message: 'must NOT have more than 80 characters',
        },
        { path: '/copyVariants', keyword: 'maxItems', message: 'must NOT have more than 1 items' },
      ],
    };
    const out = (await invoke({ feedback })) as { copyVariants: CopyVariant[] };
    expect(out.copyVariants).toHaveLength(1);
    expect(out.copyVariants.every((v) => codePointLength(v.body) <= 80)).toBe(true);
  });

  it('never cuts a character in two: truncation counts code points and keeps surrogate pairs whole', () => {
    expect(truncate('🚀🚀🚀🚀 launch', 3)).toBe('🚀🚀…');
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 0, max: 70 }),
        (text, max) => {
          const cut = truncate(text, max);
          expect(codePointLength(cut)).toBeLessThanOrEqual(Math.max(max, 0));
          const lone = (t: string) => Array.from(t).some((c) => /^[\uD800-\uDFFF]$/.test(c));
          if (!lone(text)) expect(lone(cut)).toBe(false);
        },
      ),
    );
  });
});

function sharedSentences(a: string, b: string): number {
  const mine = new Set(sentences(a));
  return sentences(b).filter((s) => mine.has(s)).length;
}

function wordOverlap(a: string, b: string): number {
  const ka = keywords(a);
  const kb = keywords(b);
  let shared = 0;
  for (const k of ka) if (kb.has(k)) shared++;
  return shared / new Set([...ka, ...kb]).size;
}
