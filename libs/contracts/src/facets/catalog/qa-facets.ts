import type { FacetDefinition } from '../facet-definition';
import { QA_CHECKS, SEVERITIES, text } from './schema-fragments';

const score = { type: 'number', minimum: 0, maximum: 1 };
const scoresByCheck = {
  type: 'object',
  propertyNames: { type: 'string', enum: QA_CHECKS },
  additionalProperties: score,
};

const qaRubric: FacetDefinition = {
  name: 'qaRubric',
  title: 'QA Rubric',
  description: 'Policy and quality rubric settings QA should enforce.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['checks', 'thresholds'],
    properties: {
      checks: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: QA_CHECKS } },
      thresholds: {
        type: 'object',
        propertyNames: { type: 'string', enum: [...QA_CHECKS, 'overall'] },
        additionalProperties: score,
      },
    },
  },
  semantics:
    'Score every listed check in [0, 1]; a check below its threshold (or overall below thresholds.overall) is a failure.',
  metadata: { version: 'v1', directionality: 'input' },
};

const qaFindings: FacetDefinition = {
  name: 'qaFindings',
  title: 'QA Findings',
  description: 'QA results with scores and compliance flags.',
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['overallScore', 'scores', 'issues', 'overallStatus'],
    properties: {
      overallScore: score,
      scores: scoresByCheck,
      issues: {
        type: 'array',
        maxItems: 50,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['check', 'severity', 'message'],
          properties: {
            check: { type: 'string', enum: QA_CHECKS },
            severity: { type: 'string', enum: SEVERITIES },
            message: text(1_000),
            variantIndex: { type: 'integer', minimum: 0, maximum: 4 },
          },
        },
      },
      overallStatus: { type: 'string', enum: ['pass', 'needs_revision', 'fail'] },
    },
  },
  semantics:
    'Report overallScore in [0, 1], a score per check, every issue found (with the variant it concerns), and a pass/needs_revision/fail verdict.',
  metadata: { version: 'v1', directionality: 'output' },
};

const recommendationSet: FacetDefinition = {
  name: 'recommendationSet',
  title: 'Recommendation Set',
  description: 'Normalised follow-up actions for editors or writers.',
  schema: {
    type: 'array',
    maxItems: 20,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['severity', 'recommendation', 'rationale'],
      properties: {
        severity: { type: 'string', enum: SEVERITIES },
        recommendation: text(1_000),
        rationale: text(2_000),
      },
    },
  },
  semantics: 'Each recommendation is one concrete edit, with how much it matters and why.',
  metadata: { version: 'v1', directionality: 'output' },
};

/** The quality-assurance facets of spec 003 §11. */
export const QA_FACETS: readonly FacetDefinition[] = [qaRubric, qaFindings, recommendationSet];
