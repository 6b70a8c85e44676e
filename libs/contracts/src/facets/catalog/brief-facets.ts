import type { FacetDefinition } from '../facet-definition';
import { text, textList } from './schema-fragments';

const objectiveBrief: FacetDefinition = {
  name: 'objectiveBrief',
  title: 'Objective Brief',
  description: "Structured summary of the client's stated objective, constraints, and success criteria.",
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['objective'],
    properties: { objective: text(10_000), successCriteria: textList(20) },
  },
  semantics:
    'Treat objective as the goal every output must serve; successCriteria are the tests a reviewer will apply.',
  metadata: { version: 'v1', directionality: 'input' },
};

const audienceProfile: FacetDefinition = {
  name: 'audienceProfile',
  title: 'Audience Profile',
  description: 'Audience attributes (personas, segments, geography) that influence strategy and tone.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['persona', 'segments'],
    properties: { persona: text(500), segments: textList(20, 200), regions: textList(50, 100) },
  },
  semantics:
    'Write for this persona and these segments; respect regional conventions when regions are given.',
  metadata: { version: 'v1', directionality: 'input' },
};

const toneOfVoice: FacetDefinition = {
  name: 'toneOfVoice',
  title: 'Tone of Voice',
  description: 'Adjusts emotional style and diction of the generated text.',
  schema: {
    type: 'string',
    enum: [
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
    ],
  },
  semantics: 'Agent should skew language, phrasing, word choice to reflect the tone value.',
  metadata: { version: 'v1', directionality: 'input' },
};

const url = { type: 'string', minLength: 1, maxLength: 2_048, pattern: '^https?://' };
const asset = (type: string, payload: Record<string, unknown>, required: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: ['type', 'payload'],
  properties: {
    type: { type: 'string', const: type },
    payload: { type: 'object', additionalProperties: false, required, properties: payload },
  },
});

const assetBundle: FacetDefinition = {
  name: 'assetBundle',
  title: 'Asset Bundle',
  description: 'Links or embedded assets (docs, images) to ground planning.',
  schema: {
    type: 'array',
    maxItems: 20,
    items: {
      oneOf: [
        asset('link', { url, title: text(300) }, ['url']),
        asset('image', { url, altText: text(1_000) }, ['url']),
        asset('document', { title: text(300), url, content: text(100_000) }, ['title']),
        asset('text', { content: text(100_000) }, ['content']),
        {
          type: 'object',
          additionalProperties: false,
          required: ['type', 'payload'],
          properties: {
            type: { type: 'string', const: 'data' },
            payload: { type: 'object', maxProperties: 100 },
          },
        },
      ],
    },
  },
  semantics:
    'Ground claims in these assets; prefer facts found in them over assumptions. `data` assets carry structured facts (company profile, product sheet).',
  metadata: { version: 'v1', directionality: 'input' },
};

/** The caller-supplied facets of spec 003 §11: objective, audience, tone, assets. */
export const BRIEF_FACETS: readonly FacetDefinition[] = [
  objectiveBrief,
  audienceProfile,
  toneOfVoice,
  assetBundle,
];
