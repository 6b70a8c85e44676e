import Ajv from 'ajv';
import { FacetCatalog, FacetCatalogError, getFacetCatalog } from './facet-catalog';
import type { FacetDefinition } from './facet-definition';

// Spec 003 §11 "Facet Catalog": name and direction, in the table's order ("input/output" = bidirectional).
const SPEC_TABLE: Array<[string, FacetDefinition['metadata']['directionality']]> = [
  ['objectiveBrief', 'input'],
  ['audienceProfile', 'input'],
  ['toneOfVoice', 'input'],
  ['assetBundle', 'input'],
  ['writerBrief', 'bidirectional'],
  ['planKnobs', 'bidirectional'],
  ['strategicRationale', 'output'],
  ['copyVariants', 'bidirectional'],
  ['qaRubric', 'input'],
  ['qaFindings', 'output'],
  ['recommendationSet', 'output'],
  // Flex's addition (docs/security/secrets.md): the one sensitive facet.
  ['credentials', 'input'],
];

const variant = {
  headline: 'Ship audits in minutes',
  body: 'Real-time audit trails for regulated teams.',
  callToAction: 'Book a demo',
};

// For each facet: values its schema must accept and values it must refuse.
const VALUES: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  objectiveBrief: {
    valid: [{ objective: 'Launch post' }, { objective: 'x', successCriteria: ['2 variants'] }],
    invalid: [{}, { objective: '' }, { objective: 'x', extra: 1 }],
  },
  audienceProfile: {
    valid: [
      { persona: 'CISO', segments: ['fintech'] },
      { persona: 'p', segments: [], regions: ['EU'] },
    ],
    invalid: [{ persona: 'p' }, { persona: 'p', segments: 'x' }],
  },
  toneOfVoice: {
    valid: ['friendly', 'professional', 'inspiring', 'confident', 'supportive'],
    invalid: ['sarcastic', ['friendly'], 3],
  },
  assetBundle: {
    valid: [
      [],
      [
        { type: 'link', payload: { url: 'https://example.com' } },
        { type: 'text', payload: { content: 'facts' } },
        { type: 'data', payload: { companyName: 'Akkuro' } },
      ],
    ],
    invalid: [
      [{ type: 'link', payload: { url: 'ftp://x' } }],
      [{ type: 'video', payload: {} }],
      [{ type: 'text', payload: { content: 'x', url: 'https://x' } }],
    ],
  },
  writerBrief: {
    valid: [{ angle: 'risk reduction', keyPoints: ['audit trail'], constraints: [] }],
    invalid: [
      { angle: 'a', keyPoints: [], constraints: [] },
      { angle: 'a', keyPoints: ['k'] },
    ],
  },
  planKnobs: {
    valid: [{ variantCount: 2 }, { ctaFocus: 'demo', length: 'short' }],
    invalid: [{}, { variantCount: 6 }, { length: 'huge' }, { tone: 'x' }],
  },
  strategicRationale: {
    valid: [{ northStar: 'trust', whyItWorks: 'because', risks: ['overclaiming'] }],
    invalid: [{ northStar: 'trust' }],
  },
  copyVariants: {
    valid: [[variant], Array(5).fill(variant)],
    invalid: [
      [],
      Array(6).fill(variant),
      [{ ...variant, callToAction: '' }],
      [{ headline: 'h', body: 'b' }],
      [{ ...variant, emoji: true }],
    ],
  },
  qaRubric: {
    valid: [{ checks: ['readability', 'policy_risk'], thresholds: { overall: 0.8, readability: 0.7 } }],
    invalid: [
      { checks: [], thresholds: {} },
      { checks: ['vibes'], thresholds: {} },
      { checks: ['clarity'], thresholds: { clarity: 2 } },
    ],
  },
  qaFindings: {
    valid: [
      {
        overallScore: 0.85,
        scores: { clarity: 0.9 },
        issues: [{ check: 'clarity', severity: 'low', message: 'long intro', variantIndex: 1 }],
        overallStatus: 'pass',
      },
    ],
    invalid: [
      { scores: {}, issues: [], overallStatus: 'pass' },
      { overallScore: 1.2, scores: {}, issues: [], overallStatus: 'pass' },
      { overallScore: 0.5, scores: { vibes: 1 }, issues: [], overallStatus: 'pass' },
      { overallScore: 0.5, scores: {}, issues: [], overallStatus: 'ok' },
    ],
  },
  credentials: {
    valid: [{}, { githubToken: 'ghp_x', smtp: { user: 'u', password: 'p' } }, { $secret: 's1' }],
    invalid: ['a token', [], null],
  },
  recommendationSet: {
    valid: [[], [{ severity: 'high', recommendation: 'Cut the intro', rationale: 'Too long' }]],
    invalid: [
      [{ severity: 'urgent', recommendation: 'r', rationale: 'r' }],
      [{ severity: 'low', recommendation: 'r' }],
    ],
  },
};

describe('getFacetCatalog', () => {
  const catalog = getFacetCatalog();
  const ajv = new Ajv({ strict: true, allErrors: true });

  it('holds exactly the facets of spec 003 §11, in order, with their directions, then credentials', () => {
    expect(catalog.list().map((f) => [f.name, f.metadata.directionality])).toEqual(SPEC_TABLE);
  });

  it('only credentials is sensitive, and a sensitive facet can only be an input', () => {
    expect(
      catalog
        .list()
        .filter((f) => f.metadata.sensitive)
        .map((f) => f.name),
    ).toEqual(['credentials']);
    const credentials = catalog.get('credentials') as FacetDefinition;
    for (const directionality of ['output', 'bidirectional'] as const)
      expect(
        () => new FacetCatalog([{ ...credentials, metadata: { ...credentials.metadata, directionality } }]),
      ).toThrow(/sensitive facet must be an input facet/);
  });

  it('is the same frozen instance everywhere', () => {
    expect(getFacetCatalog()).toBe(catalog);
    expect(Object.isFrozen(catalog.get('copyVariants')?.schema)).toBe(true);
  });

  it.each(SPEC_TABLE.map(([name]) => name))(
    '%s: its schema compiles under Ajv strict mode and means what it says',
    (name) => {
      const validate = ajv.compile(catalog.get(name)?.schema as object);
      for (const value of VALUES[name].valid)
        expect({ value, ok: validate(value), errors: validate.errors }).toEqual({
          value,
          ok: true,
          errors: null,
        });
      for (const value of VALUES[name].invalid)
        expect({ value, ok: validate(value) }).toEqual({ value, ok: false });
    },
  );

  it('looks facets up', () => {
    expect(catalog.get('qaFindings')?.title).toBe('QA Findings');
    expect(catalog.get('rationaleSummary')).toBeUndefined();
    expect(catalog.has('toneOfVoice')).toBe(true);
    expect(catalog.has('constructor')).toBe(false);
    expect(catalog.resolveMany(['toneOfVoice', 'writerBrief']).map((f) => f.name)).toEqual([
      'toneOfVoice',
      'writerBrief',
    ]);
  });

  it('names every unknown facet in FACET_NOT_FOUND', () => {
    expect(() => catalog.resolveMany(['toneOfVoice', 'nope', 'rationaleSummary'])).toThrow(
      expect.objectContaining({
        name: 'FacetCatalogError',
        code: 'FACET_NOT_FOUND',
        facets: ['nope', 'rationaleSummary'],
      }),
    );
  });

  it.each<[string[], 'input' | 'output', string[]]>([
    [['toneOfVoice', 'qaFindings'], 'input', ['qaFindings']],
    [['copyVariants', 'qaRubric', 'objectiveBrief'], 'output', ['qaRubric', 'objectiveBrief']],
  ])('refuses %j as %s with FACET_DIRECTION_MISMATCH', (names, direction, wrong) => {
    expect(() => catalog.resolveMany(names, direction)).toThrow(
      expect.objectContaining({ code: 'FACET_DIRECTION_MISMATCH', facets: wrong }),
    );
    expect(() => catalog.resolveMany(names)).not.toThrow();
  });
});

describe('FacetCatalog construction', () => {
  const facet = getFacetCatalog().get('toneOfVoice') as FacetDefinition;

  it('enforces unique names', () => {
    expect(() => new FacetCatalog([facet, { ...facet, title: 'Other' }])).toThrow(
      expect.objectContaining({ code: 'FACET_DUPLICATE', facets: ['toneOfVoice'] }),
    );
  });

  it('validates each definition', () => {
    const bad = {
      ...facet,
      metadata: { version: 'v1', directionality: 'sideways' },
    } as unknown as FacetDefinition;
    expect(() => new FacetCatalog([bad])).toThrow(FacetCatalogError);
  });
});
