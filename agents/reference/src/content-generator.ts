import {
  boundsAt,
  defineAgent,
  effectiveOutputSchema,
  fitToSchema,
  type AgentInvocationContext,
  type Bounds,
  type SchemaView,
} from '@flex/agent-sdk';
import { COPYWRITER_LINKEDIN_VARIANTS } from '@flex/contracts';
import { breaksConstraint } from './claims';
import { readBrief, type BriefFacts } from './brief-reader';
import type { AudienceProfile, CopyVariant, PlanKnobs, ToneOfVoice, WriterBrief } from './facet-values';
import { readInstructions, type VariantDirection } from './instructions';
import {
  audienceNoun,
  capitalize,
  clause,
  coverage,
  decapitalize,
  hash,
  joinList,
  keywords,
  pick,
  truncate,
} from './text';
import { voiceOf, type Voice } from './voices';

export interface VariantInputs {
  writerBrief: WriterBrief;
  planKnobs?: PlanKnobs;
  toneOfVoice?: ToneOfVoice;
  audienceProfile?: AudienceProfile;
}

const FALLBACK_FOCUS = [
  'what changes day to day',
  'the people behind it',
  'the problem it solves',
  'what comes next',
  'the bigger picture',
];
const SUPPORT_SENTENCES = { short: 1, medium: 2, long: 3 } as const;

/**
 * Writes 1–5 LinkedIn variants. Each variant leads with its own direction (from the envelope's
 * special instructions, else from the brief's "Variant X should highlight …" constraints, else
 * from the brief's highlights), backs it with the brief's facts that fit it best, and
 * speaks to the audience in the requested tone. Pure: the same input gives the same variants.
 *
 * `contract` is the output schema to meet (the node's contract and the bounds a repair attempt was
 * told about): it bounds the variant count and each field's length and allowed values.
 */
export function writeVariants(
  inputs: VariantInputs,
  context: AgentInvocationContext,
  contract?: SchemaView,
  offset = 0,
): CopyVariant[] {
  const brief = readBrief(inputs.writerBrief);
  const fromEnvelope = readInstructions(context.specialInstructions).directions;
  const directions =
    fromEnvelope.length > 0 ? fromEnvelope : readInstructions(inputs.writerBrief.constraints).directions;
  const items = boundsAt(contract, ['copyVariants']);
  const wanted = clamp(inputs.planKnobs?.variantCount ?? (directions.length || 2), 1, 5);
  const count = clamp(wanted, Math.max(1, items.minItems ?? 1), Math.min(5, items.maxItems ?? 5));
  // A lane of a larger set writes the variants after the `offset` the lanes before it write.
  const foci = fillFoci(directions, brief, offset + count).slice(offset);
  const voice = voiceOf(inputs.toneOfVoice);
  const seed = hash(inputs.writerBrief.angle);
  const used = new Map<string, number>();
  return foci.map((focus, i) =>
    fitVariant(writeOne({ focus, index: offset + i, seed, brief, voice, inputs, used }), contract, i),
  );
}

const FIELD_MAX = { headline: 200, body: 3_000, callToAction: 200 } as const;

/** Each field within what the contract allows for it: its maximum length, its allowed values. */
function fitVariant(variant: CopyVariant, contract: SchemaView | undefined, index: number): CopyVariant {
  const fit = (field: keyof CopyVariant) =>
    fitField(variant[field], boundsAt(contract, ['copyVariants', index, field]), FIELD_MAX[field]);
  return { headline: fit('headline'), body: fit('body'), callToAction: fit('callToAction') };
}

function fitField(text: string, bounds: Bounds, max: number): string {
  const allowed = (bounds.allowed ?? []).filter((a): a is string => typeof a === 'string');
  if (bounds.allowed && allowed.length > 0 && !allowed.includes(text)) return closest(text, allowed);
  return truncate(text, Math.min(max, bounds.maxLength ?? max));
}

/** The allowed value sharing most words with what was written (the first on a tie). */
function closest(text: string, allowed: readonly string[]): string {
  const have = keywords(text);
  return allowed.reduce(
    (best, option) => (coverage(keywords(option), have) > coverage(keywords(best), have) ? option : best),
    allowed[0],
  );
}

interface Draft {
  focus: string;
  index: number;
  seed: number;
  brief: BriefFacts;
  voice: Voice;
  inputs: VariantInputs;
  /** How often each supporting fact was used by earlier variants. */
  used: Map<string, number>;
}

function writeOne(d: Draft): CopyVariant {
  const { brief, voice, focus } = d;
  const persona = audienceNoun(d.inputs.audienceProfile?.persona ?? 'readers');
  // A focus that already names the company ("Akkuro's launch") needs no "at Akkuro".
  const company = brief.company && !focus.includes(brief.company) ? brief.company : undefined;
  const at = company ? ` at ${company}` : '';
  const slot = d.seed + d.index;
  const body = [
    pick(voice.openers, slot)(focus, persona),
    focusSentence(focus, company, brief.coreValue, slot),
    ...supportFor(d).map((s) => `${capitalize(clause(s))}.`),
    audienceSentence(d.inputs.audienceProfile, slot),
    pick(voice.closers, slot)(focus),
  ].filter((s): s is string => Boolean(s));
  return {
    headline: truncate(pick(voice.headlines, slot)(capitalize(focus), focus, at), 200),
    body: truncate(body.join(' '), 3_000),
    callToAction: truncate(callToAction(d.inputs.planKnobs?.ctaFocus ?? 'engage', focus, company, slot), 200),
  };
}

function focusSentence(
  focus: string,
  company: string | undefined,
  coreValue: string | undefined,
  slot: number,
): string {
  const value = coreValue ? decapitalize(clause(coreValue)) : undefined;
  if (company && value) {
    return pick(
      [
        `At ${company}, one idea shapes ${focus}: ${value}.`,
        `For ${focus} at ${company}, it comes down to ${value}.`,
        `Ask anyone at ${company} about ${focus} and you will hear the same answer: ${value}.`,
        `Behind ${focus} at ${company} sits a simple principle: ${value}.`,
      ],
      slot,
    );
  }
  if (value) return `One idea shapes ${focus}: ${value}.`;
  if (company) return `At ${company}, ${focus} is part of how the work gets done every day.`;
  return `This story starts with ${focus}.`;
}

/**
 * The brief's facts that fit this variant's focus best, preferring facts earlier variants have
 * not used yet, so each variant backs its direction with different evidence. Facts that would
 * break a brief constraint ("Avoid claims about salaries") are never used.
 */
function supportFor(d: Draft): string[] {
  const wanted = keywords(d.focus);
  const n = SUPPORT_SENTENCES[d.inputs.planKnobs?.length ?? 'medium'];
  const echo = `worth a closer look: ${d.focus}`.toLowerCase();
  const safe = d.brief.support.filter(
    (s) => s.toLowerCase() !== echo && !d.inputs.writerBrief.constraints.some((c) => breaksConstraint(s, c)),
  );
  const chosen = safe
    .map((text, i) => ({
      text,
      i,
      fit: coverage(wanted, keywords(text)) > 0 ? 1 : 0,
      used: d.used.get(text) ?? 0,
    }))
    .sort((a, b) => b.fit - a.fit || a.used - b.used || a.i - b.i)
    .slice(0, n)
    .map((s) => s.text);
  for (const text of chosen) d.used.set(text, (d.used.get(text) ?? 0) + 1);
  return chosen;
}

function audienceSentence(audience: AudienceProfile | undefined, slot: number): string | undefined {
  if (!audience?.segments.length) return undefined;
  const who = `${joinList(audience.segments)}${audience.regions?.length ? ` across ${joinList(audience.regions)}` : ''}`;
  return pick(
    [
      `Written with ${who} in mind.`,
      `Especially relevant for ${who}.`,
      `A note for ${who}.`,
      `Shared with ${who} in mind.`,
    ],
    slot,
  );
}

function callToAction(ctaFocus: string, focus: string, company: string | undefined, slot: number): string {
  const f = ctaFocus.toLowerCase();
  if (/apply|hir|recruit|job|role|join/.test(f))
    return pick(
      [`Apply now and see ${focus} for yourself`, `Explore our open roles and ask us about ${focus}`],
      slot,
    );
  if (/regist|event|webinar|seat/.test(f))
    return pick(
      [`Save your seat to hear more about ${focus}`, `Register now and bring your questions on ${focus}`],
      slot,
    );
  if (/demo|trial|sign/.test(f))
    return pick(
      [`Book a demo to see ${focus} in action`, `Start a trial and put ${focus} to the test`],
      slot,
    );
  if (/learn|read|launch|more/.test(f))
    return pick(
      [
        `Read the full story on ${focus}`,
        `Learn how ${company ?? 'we'} ${company ? 'approaches' : 'approach'} ${focus}`,
      ],
      slot,
    );
  if (/follow|brand|aware/.test(f))
    return pick(
      [`Follow ${company ?? 'us'} for more on ${focus}`, `Follow along as we share more about ${focus}`],
      slot,
    );
  return pick([`Share your take on ${focus} in the comments`, `Tell us how you see ${focus}`], slot);
}

/** One focus per variant: the directions first, then the brief's highlights, subject and core value, then generic angles. */
function fillFoci(directions: readonly VariantDirection[], brief: BriefFacts, count: number): string[] {
  const foci = directions.slice(0, count).map((d) => d.focus);
  const fromBrief = [
    ...brief.highlights,
    brief.subject,
    brief.coreValue && decapitalize(brief.coreValue),
  ].filter((f): f is string => Boolean(f));
  for (const candidate of [...fromBrief, ...FALLBACK_FOCUS]) {
    if (foci.length >= count) break;
    if (!foci.some((f) => f.toLowerCase() === candidate.toLowerCase())) foci.push(candidate);
  }
  // More variants than distinct foci (lanes of a large set): reuse them, each at another slot.
  while (foci.length < count) foci.push(FALLBACK_FOCUS[foci.length % FALLBACK_FOCUS.length]);
  return foci;
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.round(n)));
}

export const contentGeneratorAgent = defineAgent({
  registration: COPYWRITER_LINKEDIN_VARIANTS,
  handle: async (invocation, ctx) => {
    const inputs = invocation.inputs as Partial<VariantInputs>;
    const writerBrief = inputs.writerBrief ?? {
      angle: invocation.context.objective,
      keyPoints: [invocation.context.objective],
      constraints: [],
    };
    const contract = effectiveOutputSchema(invocation);
    ctx.reportUsage({ tokens: 0, costCents: 0, model: 'deterministic' });
    const offset = invocation.part?.facet === 'copyVariants' ? invocation.part.offset : 0;
    return fitToSchema(
      { copyVariants: writeVariants({ ...inputs, writerBrief }, invocation.context, contract, offset) },
      contract,
    );
  },
});
