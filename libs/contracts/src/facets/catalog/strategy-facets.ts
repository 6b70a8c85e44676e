import type { FacetDefinition } from '../facet-definition';
import { text, textList } from './schema-fragments';

const writerBrief: FacetDefinition = {
  name: 'writerBrief',
  title: 'Writer Brief',
  description:
    'Narrative direction, key points, blockers for writers; produced by strategy, consumed by execution.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['angle', 'keyPoints', 'constraints'],
    properties: { angle: text(1_000), keyPoints: textList(10, 500, 1), constraints: textList(20) },
  },
  semantics: 'Follow the angle, cover every key point, and never break a listed constraint.',
  metadata: { version: 'v1', directionality: 'bidirectional' },
};

const planKnobs: FacetDefinition = {
  name: 'planKnobs',
  title: 'Plan Knobs',
  description: 'Normalised levers the orchestrator can tweak (variant counts, CTA emphasis, length).',
  schema: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      variantCount: { type: 'integer', minimum: 1, maximum: 5 },
      ctaFocus: text(200),
      length: { type: 'string', enum: ['short', 'medium', 'long'] },
    },
  },
  semantics:
    'Produce exactly variantCount variants when set; weight the call to action by ctaFocus; size copy by length.',
  metadata: { version: 'v1', directionality: 'bidirectional' },
};

const strategicRationale: FacetDefinition = {
  name: 'strategicRationale',
  title: 'Strategic Rationale',
  description: 'Strategy justification and high-level narrative reasoning.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['northStar', 'whyItWorks'],
    properties: { northStar: text(1_000), whyItWorks: text(4_000), risks: textList(10) },
  },
  semantics: 'Explain the guiding idea (northStar), why it serves the objective, and what could go wrong.',
  metadata: { version: 'v1', directionality: 'output' },
};

const copyVariants: FacetDefinition = {
  name: 'copyVariants',
  title: 'Copy Variants',
  description: 'Structured set of draft variants for distribution downstream.',
  schema: {
    type: 'array',
    minItems: 1,
    maxItems: 5,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['headline', 'body', 'callToAction'],
      properties: { headline: text(200), body: text(3_000), callToAction: text(200) },
    },
  },
  semantics: 'Each variant is a complete post: a headline, a body that stands alone, and one call to action.',
  metadata: { version: 'v1', directionality: 'bidirectional' },
};

/** The strategy and copy facets of spec 003 §11. */
export const STRATEGY_FACETS: readonly FacetDefinition[] = [
  writerBrief,
  planKnobs,
  strategicRationale,
  copyVariants,
];
