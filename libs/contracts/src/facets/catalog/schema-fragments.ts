/** JSON Schema helpers shared by the catalog's facet definitions (draft-07 keywords only). */
export const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });

/** A list of short texts. */
export const textList = (maxItems: number, maxLength = 500, minItems = 0) => ({
  type: 'array',
  minItems,
  maxItems,
  items: text(maxLength),
});

/** The QA checks a rubric can ask for and findings can score. */
export const QA_CHECKS = [
  'readability',
  'clarity',
  'objective_fit',
  'policy_risk',
  'brand_voice',
  'tone_alignment',
  'cta_presence',
  'compliance',
];

/** Severities shared by QA issues and recommendations. */
export const SEVERITIES = ['low', 'medium', 'high'];
