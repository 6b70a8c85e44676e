import fc from 'fast-check';

/**
 * Generated output contracts over the spec's keyword set and constraint operators, shaped around
 * the facets the reference agents produce: bounds that fit and bounds that conflict, extra
 * required fields, string limits, enums, quantified constraints, negated `missing`, cross-field
 * rules, and properties nobody produces (required or not).
 */
export interface GeneratedContract {
  schema: Record<string, unknown>;
  constraints: Array<{ constraintId: string; level: 'hard' | 'soft'; expr: unknown }>;
  variantCount?: number;
}

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
const str = (max: number) =>
  opt(fc.integer({ min: 1, max })).map((maxLength) => defined({ type: 'string', maxLength }));

const copyVariants = fc
  .record({
    minItems: opt(fc.integer({ min: 0, max: 8 })),
    maxItems: opt(fc.integer({ min: 0, max: 8 })),
    required: opt(fc.subarray(['headline', 'body', 'callToAction', 'hashtags'])),
    headline: str(200),
    body: opt(fc.integer({ min: 20, max: 3000 })),
    cta: opt(fc.constantFrom(['Join us', 'Apply now'], ['Apply now'])),
    uniqueItems: opt(fc.boolean()),
  })
  .map((g) =>
    defined({
      type: 'array',
      minItems: g.minItems,
      maxItems: g.maxItems,
      uniqueItems: g.uniqueItems,
      items: defined({
        type: 'object',
        required: g.required,
        properties: defined({
          headline: g.headline,
          body: g.body === undefined ? undefined : { type: 'string', maxLength: g.body },
          callToAction: g.cta === undefined ? undefined : { type: 'string', enum: g.cta },
        }),
      }),
    }),
  );

const writerBrief = fc
  .record({
    required: opt(fc.subarray(['angle', 'keyPoints', 'constraints', 'tone'])),
    min: opt(fc.integer({ min: 0, max: 12 })),
    angle: str(1000),
  })
  .map((g) =>
    defined({
      type: 'object',
      required: g.required,
      properties: defined({
        angle: g.angle,
        keyPoints: g.min === undefined ? undefined : { type: 'array', minItems: g.min },
      }),
    }),
  );

const strategicRationale = fc
  .record({
    required: opt(fc.subarray(['northStar', 'whyItWorks', 'risks'])),
    risks: opt(fc.integer({ min: 0, max: 12 })),
  })
  .map((g) =>
    defined({
      type: 'object',
      required: g.required,
      properties: g.risks === undefined ? undefined : { risks: { type: 'array', maxItems: g.risks } },
    }),
  );

const qaFindings = fc
  .record({
    minimum: opt(fc.constantFrom(0, 0.5, 0.8, 1, 1.5)),
    status: opt(fc.constantFrom(['pass'], ['pass', 'needs_revision', 'fail'], ['ok'])),
  })
  .map((g) =>
    defined({
      type: 'object',
      properties: defined({
        overallScore: g.minimum === undefined ? undefined : { type: 'number', minimum: g.minimum },
        overallStatus: g.status === undefined ? undefined : { type: 'string', enum: g.status },
      }),
    }),
  );

const PROPERTIES: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  copyVariants,
  writerBrief,
  strategicRationale,
  qaFindings,
  recommendationSet: fc
    .record({ maxItems: opt(fc.integer({ min: 0, max: 30 })) })
    .map((g) => defined({ type: 'array', maxItems: g.maxItems })),
  summary: fc.constant({ type: 'string' }),
};

const n = fc.integer({ min: 0, max: 8 });
const cmp = fc.constantFrom('==', '>=', '<=', '<', '>', '!=');
const rules: fc.Arbitrary<unknown>[] = [
  fc.tuple(cmp, n).map(([op, k]) => ({ [op]: [{ var: 'copyVariants.length' }, k] })),
  fc
    .tuple(fc.constantFrom('all', 'some', 'none'), fc.integer({ min: 10, max: 4000 }))
    .map(([q, k]) => ({ [q]: [{ var: 'copyVariants' }, { '<=': [{ var: 'body.length' }, k] }] })),
  fc
    .subarray(['copyVariants', 'writerBrief', 'summary', 'qaFindings'], { minLength: 1 })
    .map((keys) => ({ '!': { missing: keys } })),
  fc.constantFrom(0, 0.5, 0.8, 1.2).map((x) => ({ '>=': [{ var: 'qaFindings.overallScore' }, x] })),
  fc.constant({ in: [{ var: 'qaFindings.overallStatus' }, ['pass', 'needs_revision']] }),
  fc.constant({ '==': [{ var: 'planKnobs.variantCount' }, { var: 'copyVariants.length' }] }),
  fc.tuple(cmp, n).map(([op, k]) => ({
    [op]: [{ '+': [{ var: 'copyVariants.length' }, { var: 'writerBrief.keyPoints.length' }] }, k],
  })),
  fc.constant({ if: [{ var: 'summary' }, true, { '>': [{ var: 'copyVariants.length' }, 0] }] }),
];
const rule: fc.Arbitrary<unknown> = fc.oneof(
  ...rules,
  fc
    .tuple(fc.constantFrom('and', 'or'), fc.array(fc.oneof(...rules), { minLength: 2, maxLength: 3 }))
    .map(([op, xs]) => ({ [op]: xs })),
);

export const contractArbitrary: fc.Arbitrary<GeneratedContract> = fc
  .record({
    keys: fc.subarray(Object.keys(PROPERTIES), { minLength: 1, maxLength: 3 }),
    requiredMask: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    constraints: fc.array(
      fc.record({ level: fc.constantFrom('hard' as const, 'soft' as const), expr: rule }),
      { maxLength: 3 },
    ),
    variantCount: opt(fc.integer({ min: 1, max: 8 })),
  })
  .chain((g) =>
    fc.tuple(...g.keys.map((k) => PROPERTIES[k])).map((schemas) => ({
      schema: {
        type: 'object',
        required: g.keys.filter((_, i) => g.requiredMask[i]),
        properties: Object.fromEntries(g.keys.map((k, i) => [k, schemas[i]])),
      },
      constraints: g.constraints.map((c, i) => ({ constraintId: `c${i}`, ...c })),
      variantCount: g.variantCount,
    })),
  );
