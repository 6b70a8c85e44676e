import type { TaskEnvelope } from '@flex/contracts';

/** A value the envelope offers for a facet, and the envelope path it came from. */
export interface Candidate {
  readonly value: unknown;
  readonly source: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

export function directivesOf(envelope: TaskEnvelope): Json {
  const directives = envelope.policies?.planner?.directives;
  return isObject(directives) ? directives : {};
}

/** An explicit `inputs.<facet>` value, always tried first. */
export function explicit(envelope: TaskEnvelope, facet: string): Candidate[] {
  return Object.hasOwn(envelope.inputs, facet)
    ? [{ value: envelope.inputs[facet], source: `inputs.${facet}` }]
    : [];
}

export function objectiveBriefCandidates(envelope: TaskEnvelope): Candidate[] {
  const criteria = envelope.specialInstructions ?? [];
  const bare = { value: { objective: envelope.objective }, source: 'objective' };
  if (criteria.length === 0) return [bare];
  return [
    {
      value: { objective: envelope.objective, successCriteria: criteria },
      source: 'objective, specialInstructions',
    },
    bare,
  ];
}

/** A tone, or a list of tones tried in order; matched case-insensitively (the catalog's enum is lower case). */
export function toneCandidates(envelope: TaskEnvelope): Candidate[] {
  const tone = (value: unknown) => (typeof value === 'string' ? value.trim().toLowerCase() : value);
  const offered = (given: unknown, source: string): Candidate[] => {
    if (Array.isArray(given))
      return given.map((value, i) => ({ value: tone(value), source: `${source}[${i}]` }));
    return given === undefined ? [] : [{ value: tone(given), source }];
  };
  return [
    ...offered(envelope.inputs.toneOfVoice, 'inputs.toneOfVoice'),
    ...offered(directivesOf(envelope).brandVoice, 'policies.planner.directives.brandVoice'),
  ];
}

// What a stated goal says about who is being addressed, when nothing else does. Checked in order.
const GOAL_AUDIENCES: ReadonlyArray<readonly [RegExp, string, string]> = [
  [/employ|hire|hiring|recruit|talent|candidate|career|job/, 'job seeker', 'prospective employees'],
  [/invest|funding|fundrais/, 'investor', 'investors'],
  [/partner/, 'partner', 'prospective partners'],
  [
    /customer|lead|sales|buyer|acquisition|conversion|signup|sign_up/,
    'prospective customer',
    'prospective customers',
  ],
];

export function audienceCandidates(envelope: TaskEnvelope): Candidate[] {
  const { inputs } = envelope;
  const asProfile = (value: unknown) =>
    isText(value) ? { persona: value, segments: [] } : isObject(value) ? { segments: [], ...value } : value;
  const offered: Candidate[] = [];
  for (const key of ['audienceProfile', 'audience', 'persona']) {
    if (inputs[key] !== undefined) offered.push({ value: asProfile(inputs[key]), source: `inputs.${key}` });
  }
  const persona = directivesOf(envelope).persona;
  if (persona !== undefined)
    offered.push({ value: asProfile(persona), source: 'policies.planner.directives.persona' });
  const goal = typeof inputs.goal === 'string' ? inputs.goal.toLowerCase() : '';
  const hint = GOAL_AUDIENCES.find(([pattern]) => pattern.test(goal));
  if (hint) offered.push({ value: { persona: hint[1], segments: [hint[2]] }, source: 'inputs.goal' });
  return offered;
}

const ASSET_TYPES = new Set(['link', 'image', 'document', 'text', 'data']);

/**
 * Asset lists from the envelope. A context bundle of a kind the catalog does not name
 * (`company_profile`) is structured facts: it becomes a `data` asset keyed by that kind.
 */
export function assetCandidates(envelope: TaskEnvelope): Candidate[] {
  const asAsset = (item: unknown) =>
    isObject(item) && typeof item.type === 'string' && !ASSET_TYPES.has(item.type) && isObject(item.payload)
      ? { type: 'data', payload: { [item.type]: item.payload } }
      : item;
  const offered: Candidate[] = [];
  for (const key of ['assetBundle', 'assets', 'contextBundles']) {
    const list = envelope.inputs[key];
    if (list !== undefined)
      offered.push({ value: Array.isArray(list) ? list.map(asAsset) : list, source: `inputs.${key}` });
  }
  return offered;
}

/** Each knob on its own, highest-priority source first; `planKnobs` assembles the valid ones. */
export function knobCandidates(
  envelope: TaskEnvelope,
): Record<'variantCount' | 'ctaFocus' | 'length', Candidate[]> {
  const base = isObject(envelope.inputs.planKnobs) ? envelope.inputs.planKnobs : {};
  const directives = directivesOf(envelope);
  const pick = (...pairs: Array<[unknown, string]>): Candidate[] =>
    pairs.filter(([value]) => value !== undefined).map(([value, source]) => ({ value, source }));
  return {
    variantCount: pick(
      [envelope.policies?.planner?.topology?.variantCount, 'policies.planner.topology.variantCount'],
      [envelope.inputs.variantCount, 'inputs.variantCount'],
      [base.variantCount, 'inputs.planKnobs.variantCount'],
    ),
    ctaFocus: pick(
      [envelope.inputs.ctaFocus, 'inputs.ctaFocus'],
      [base.ctaFocus, 'inputs.planKnobs.ctaFocus'],
      [directives.ctaFocus, 'policies.planner.directives.ctaFocus'],
    ),
    length: pick(
      [envelope.inputs.length, 'inputs.length'],
      [base.length, 'inputs.planKnobs.length'],
      [directives.length, 'policies.planner.directives.length'],
    ),
  };
}
