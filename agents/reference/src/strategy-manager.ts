import {
  defineAgent,
  effectiveOutputSchema,
  fitToSchema,
  type AgentInvocationContext,
} from '@flex/agent-sdk';
import { STRATEGY_BRIEFING } from '@flex/contracts';
import { extractFacts, mergeFacts, type AssetFacts } from './asset-facts';
import type {
  AssetBundle,
  AudienceProfile,
  ObjectiveBrief,
  PlanKnobs,
  StrategicRationale,
  ToneOfVoice,
  WriterBrief,
} from './facet-values';
import { directionSentence, readInstructions, type ReadInstructions } from './instructions';
import {
  article,
  audienceNoun,
  capitalize,
  clause,
  decapitalize,
  humanizeKey,
  joinList,
  truncate,
} from './text';

export interface BriefingInputs {
  objectiveBrief?: ObjectiveBrief;
  audienceProfile?: AudienceProfile;
  toneOfVoice?: ToneOfVoice;
  assetBundle?: AssetBundle;
}

export interface Briefing {
  writerBrief: WriterBrief;
  planKnobs: PlanKnobs;
  strategicRationale: StrategicRationale;
}

const DEFAULT_VARIANTS = 2;

/**
 * Turns the objective, audience, tone and assets into a writer brief: the facts found in the
 * assets (and, failing those, in the envelope's raw inputs) become key points, the special
 * instructions become constraints and per-variant directions, and the knobs (variant count, CTA
 * focus, length) follow from both. Pure.
 */
export function buildBriefing(inputs: BriefingInputs, context: AgentInvocationContext): Briefing {
  const objective = clause(inputs.objectiveBrief?.objective ?? context.objective);
  const facts = mergeFacts(
    extractFacts(inputs.assetBundle),
    extractFacts([{ type: 'data', payload: context.inputs ?? {} }]),
  );
  const allCriteria = inputs.objectiveBrief?.successCriteria ?? [];
  // Envelopes often carry the special instructions as success criteria too: read both, keep only real criteria.
  const read = readInstructions([...(context.specialInstructions ?? []), ...allCriteria], objective);
  const criteria = allCriteria.filter((c) => isPlainCriterion(c));
  const persona = audienceNoun(inputs.audienceProfile?.persona ?? 'readers');
  const variantCount = clamp(
    Math.max(read.variantCount ?? 0, read.directions.length) || DEFAULT_VARIANTS,
    1,
    5,
  );
  const goal = typeof context.inputs?.goal === 'string' ? humanizeKey(context.inputs.goal) : '';
  return {
    writerBrief: {
      angle: truncate(angleOf(objective, persona, facts), 1_000),
      keyPoints: keyPoints(objective, facts, read, criteria),
      constraints: constraints(inputs, persona, read),
    },
    planKnobs: {
      variantCount,
      ctaFocus: ctaFocusOf(`${objective} ${goal} ${persona}`),
      length: read.length ?? 'medium',
    },
    strategicRationale: rationale(objective, persona, facts, read, inputs, criteria),
  };
}

function isPlainCriterion(criterion: string): boolean {
  const read = readInstructions([criterion]);
  return read.directions.length + read.highlights.length + read.constraints.length === 0;
}

function angleOf(objective: string, persona: string, facts: AssetFacts): string {
  const who = facts.company ?? 'the company';
  const value = facts.coreValue
    ? ` lives its core value (${decapitalize(facts.coreValue)})`
    : ' delivers on its promise';
  const hook = facts.recentEvent ? ` Timely hook: ${facts.recentEvent}.` : '';
  return `Show ${persona} how ${who}${value}, in service of one goal: ${decapitalize(objective)}.${hook}`;
}

function keyPoints(
  objective: string,
  facts: AssetFacts,
  read: ReadInstructions,
  criteria: readonly string[],
): string[] {
  const points = [`Objective: ${objective}.`];
  if (facts.company) points.push(`Company: ${facts.company}.`);
  if (facts.coreValue) points.push(`Core value: ${facts.coreValue}.`);
  if (facts.recentEvent) points.push(`Recent news: ${facts.recentEvent}.`);
  for (const h of read.highlights) points.push(`Highlight: ${h}.`);
  for (const f of facts.facts) points.push(`${capitalize(f.label)}: ${f.value}.`);
  for (const c of criteria) points.push(`Success criterion: ${clause(c)}.`);
  return dedupe(points)
    .slice(0, 10)
    .map((p) => truncate(p, 500));
}

function constraints(inputs: BriefingInputs, persona: string, read: ReadInstructions): string[] {
  const out: string[] = [];
  if (inputs.toneOfVoice) out.push(`Write in ${article(inputs.toneOfVoice)} ${inputs.toneOfVoice} tone.`);
  const audience = inputs.audienceProfile;
  if (audience) {
    const segments = audience.segments.length > 0 ? ` (${joinList(audience.segments)})` : '';
    out.push(`Speak directly to ${persona}${segments}.`);
    if (audience.regions?.length) out.push(`Respect the conventions of ${joinList(audience.regions)}.`);
  }
  out.push(...read.constraints);
  out.push(...read.directions.map(directionSentence));
  out.push('Ground every claim in the provided facts; invent no figures, guarantees or superlatives.');
  return dedupe(out)
    .slice(0, 20)
    .map((c) => truncate(c, 500));
}

function rationale(
  objective: string,
  persona: string,
  facts: AssetFacts,
  read: ReadInstructions,
  inputs: BriefingInputs,
  criteria: readonly string[],
): StrategicRationale {
  const lead = facts.coreValue ?? facts.recentEvent ?? facts.facts[0]?.value;
  const northStar = `${capitalize(objective)}${lead ? `, by leading with ${decapitalize(lead)}` : ''}.`;
  const n = factCount(facts);
  const reasons = [
    n > 0
      ? `${capitalize(persona)} respond to specifics, so the brief is built from ${n === 1 ? '1 fact' : `${n} facts`} taken from the supplied material rather than from generic claims.`
      : `With no facts supplied, the brief keeps to the objective and the audience instead of inventing claims.`,
  ];
  if (read.directions.length > 0) {
    reasons.push(
      `Each variant leads with its own direction (${joinList(read.directions.map((d) => `${d.label}: ${d.focus}`))}), so the variants test different motivations instead of rephrasing one.`,
    );
  }
  if (inputs.toneOfVoice)
    reasons.push(
      `${capitalize(article(inputs.toneOfVoice))} ${inputs.toneOfVoice} tone matches how this audience expects to be addressed.`,
    );
  if (criteria.length) reasons.push(`Success is judged by: ${joinList(criteria.map(clause))}.`);
  return {
    northStar: truncate(northStar, 1_000),
    whyItWorks: truncate(reasons.join(' '), 4_000),
    risks: risks(facts, read, inputs, criteria),
  };
}

function risks(
  facts: AssetFacts,
  read: ReadInstructions,
  inputs: BriefingInputs,
  criteria: readonly string[],
): string[] {
  const out: string[] = [];
  if (factCount(facts) === 0)
    out.push('Neither the assets nor the inputs hold usable facts, so the copy may read as generic.');
  if (!inputs.audienceProfile)
    out.push('No audience profile was given; the copy addresses a generic professional reader.');
  if (criteria.length === 0)
    out.push('No success criteria were given, so QA can only judge fit against the objective itself.');
  for (const c of read.constraints)
    out.push(`Breaking the instruction "${clause(c)}" would undermine trust.`);
  return out.slice(0, 10).map((r) => truncate(r, 500));
}

/** What the call to action should push, read from the objective's verbs. */
export function ctaFocusOf(objective: string): string {
  const o = objective.toLowerCase();
  if (/\b(recruit|hire|hiring|talent|candidates?|jobs?|job seekers?|roles?|join|employees)\b/.test(o))
    return 'apply';
  if (/\b(webinar|event|conference|meetup|summit|register)\b/.test(o)) return 'register';
  if (/\b(demo|trial|sign[ -]?ups?|leads?|pipeline)\b/.test(o)) return 'book_demo';
  if (/\b(launch|announce|release|introduc\w*|unveil)\b/.test(o)) return 'learn_more';
  if (/\b(awareness|followers|brand|community)\b/.test(o)) return 'follow';
  return 'engage';
}

function factCount(facts: AssetFacts): number {
  return [facts.company, facts.coreValue, facts.recentEvent].filter(Boolean).length + facts.facts.length;
}

function dedupe(items: readonly string[]): string[] {
  return [...new Set(items)];
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, n));
}

export const strategyManagerAgent = defineAgent({
  registration: STRATEGY_BRIEFING,
  handle: async (invocation, ctx) => {
    const briefing = buildBriefing(invocation.inputs as BriefingInputs, invocation.context);
    ctx.reportUsage({ tokens: 0, costCents: 0, model: 'deterministic' });
    // Within the node's contract (a bound variant count, length limits) and what a repair was told.
    return fitToSchema({ ...briefing }, effectiveOutputSchema(invocation));
  },
});
