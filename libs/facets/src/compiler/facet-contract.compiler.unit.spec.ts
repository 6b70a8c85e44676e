import fc from 'fast-check';
import { FacetCatalog, getFacetCatalog, type FacetDefinition } from '@flex/contracts';
import { validateFacetInputs, validateFacetOutputs } from './default-compiler';
import { FacetContractCompiler, type FacetDirection } from './facet-contract.compiler';
import { FacetContractError } from './facet-contract.error';

const facet = (
  name: string,
  schema: Record<string, unknown>,
  directionality: 'input' | 'output' | 'bidirectional' = 'input',
  propertyKey?: string,
): FacetDefinition => ({
  name,
  title: `Title ${name}`,
  description: `Description of ${name}.`,
  schema,
  semantics: `Semantics of ${name}.`,
  metadata: { version: 'v1', directionality },
  ...(propertyKey ? { propertyKey } : {}),
});

// Facets sharing property keys, to exercise merging (the spec catalog has none).
const mergeCatalog = new FacetCatalog([
  facet('toneA', { type: 'string', enum: ['calm', 'bold', 'warm'] }, 'input', 'tone'),
  facet('toneB', { type: 'string', enum: ['loud', 'warm', 'bold'] }, 'input', 'tone'),
  facet('toneQuiet', { type: 'string', enum: ['quiet'] }, 'input', 'tone'),
  facet('toneNumber', { type: 'number' }, 'input', 'tone'),
  facet('toneShort', { type: 'string', maxLength: 5 }, 'input', 'tone'),
  facet('toneLong', { type: 'string', maxLength: 50 }, 'input', 'tone'),
  facet(
    'briefAngle',
    {
      type: 'object',
      additionalProperties: false,
      required: ['angle'],
      properties: { angle: { type: 'string' } },
    },
    'bidirectional',
    'brief',
  ),
  facet(
    'briefPoints',
    {
      type: 'object',
      additionalProperties: false,
      required: ['keyPoints'],
      properties: { keyPoints: { type: 'array', items: { type: 'string' } } },
    },
    'bidirectional',
    'brief',
  ),
  facet('broken', { type: 'string', maxLenght: 3 }),
]);

function thrown(run: () => unknown): FacetContractError {
  try {
    run();
  } catch (error) {
    if (error instanceof FacetContractError) return error;
    throw error;
  }
  throw new Error('expected a FacetContractError');
}

describe('FacetContractCompiler: error codes', () => {
  const real = new FacetContractCompiler();
  const merging = new FacetContractCompiler(mergeCatalog);
  it.each<
    [string, string, FacetContractCompiler, string[], FacetDirection, string[], Record<string, unknown>]
  >([
    [
      'unknown facet',
      'FACET_NOT_FOUND',
      real,
      ['toneOfVoice', 'nope', 'alsoNope'],
      'input',
      ['alsoNope', 'nope'],
      {},
    ],
    [
      'output-only facet as input',
      'DIRECTION_MISMATCH',
      real,
      ['qaFindings', 'writerBrief'],
      'input',
      ['qaFindings'],
      { direction: 'input' },
    ],
    [
      'input-only facet as output',
      'DIRECTION_MISMATCH',
      real,
      ['copyVariants', 'toneOfVoice'],
      'output',
      ['toneOfVoice'],
      { direction: 'output' },
    ],
    [
      'shared key, different types',
      'TYPE_MISMATCH',
      merging,
      ['toneA', 'toneNumber'],
      'input',
      ['toneA', 'toneNumber'],
      { propertyKey: 'tone', pointer: '/properties/tone' },
    ],
    [
      'shared key, disjoint enums',
      'ENUM_CONFLICT',
      merging,
      ['toneA', 'toneQuiet'],
      'input',
      ['toneA', 'toneQuiet'],
      { propertyKey: 'tone', pointer: '/properties/tone/enum' },
    ],
    [
      'shared key, keyword set two ways',
      'MERGE_UNSUPPORTED',
      merging,
      ['toneLong', 'toneShort'],
      'input',
      ['toneLong', 'toneShort'],
      { keyword: 'maxLength', pointer: '/properties/tone/maxLength' },
    ],
    [
      'facet schema that does not compile',
      'INVALID_FACET_SCHEMA',
      merging,
      ['broken'],
      'input',
      ['broken'],
      { reason: expect.stringMatching(/unknown keyword/) },
    ],
  ])('%s → %s', (_label, code, compiler, names, direction, facets, details) => {
    const error = thrown(() => compiler.compile(names, direction));
    expect(error).toMatchObject({ name: 'FacetContractError', code, facets, retryable: false });
    expect(error.details).toMatchObject(details);
  });
});

describe('FacetContractCompiler: compiled schema', () => {
  const compiler = new FacetContractCompiler();

  it('puts each facet under its key, requires them all, and allows nothing else', () => {
    const compiled = compiler.compile(['writerBrief', 'toneOfVoice', 'audienceProfile'], 'input');
    const catalog = getFacetCatalog();
    expect(compiled.schema).toEqual({
      type: 'object',
      properties: {
        audienceProfile: catalog.get('audienceProfile')?.schema,
        toneOfVoice: catalog.get('toneOfVoice')?.schema,
        writerBrief: catalog.get('writerBrief')?.schema,
      },
      required: ['audienceProfile', 'toneOfVoice', 'writerBrief'],
      additionalProperties: false,
    });
    expect(compiled.facets).toEqual(['audienceProfile', 'toneOfVoice', 'writerBrief']);
    expect(compiled.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.isFrozen(compiled.schema)).toBe(true);
  });

  it('records provenance: facet, direction, pointer', () => {
    expect(compiler.compile(['copyVariants', 'strategicRationale'], 'output').provenance).toEqual([
      { facet: 'copyVariants', direction: 'output', pointer: '/properties/copyVariants' },
      { facet: 'strategicRationale', direction: 'output', pointer: '/properties/strategicRationale' },
    ]);
  });

  it('fits a bidirectional facet both ways, with the same schema hash', () => {
    const input = compiler.compile(['writerBrief'], 'input');
    const output = compiler.compile(['writerBrief'], 'output');
    expect(input.hash).toBe(output.hash);
    expect([input.provenance[0].direction, output.provenance[0].direction]).toEqual(['input', 'output']);
  });

  it('merges facets sharing a key: enums intersect, object properties and required unite', () => {
    const compiled = new FacetContractCompiler(mergeCatalog).compile(
      ['toneB', 'briefPoints', 'toneA', 'briefAngle'],
      'input',
    );
    expect(compiled.schema.properties).toEqual({
      brief: {
        type: 'object',
        additionalProperties: false,
        required: ['angle', 'keyPoints'],
        properties: { angle: { type: 'string' }, keyPoints: { type: 'array', items: { type: 'string' } } },
      },
      tone: { type: 'string', enum: ['bold', 'warm'] },
    });
    expect(compiled.schema.required).toEqual(['brief', 'tone']);
    expect(compiled.provenance.map((p) => `${p.facet}→${p.pointer}`)).toEqual([
      'briefAngle→/properties/brief',
      'briefPoints→/properties/brief',
      'toneA→/properties/tone',
      'toneB→/properties/tone',
    ]);
    expect(compiled.validate({ tone: 'calm', brief: { angle: 'a', keyPoints: [] } })).toEqual([
      {
        facet: 'toneA',
        pointer: '/tone',
        keyword: 'enum',
        message: 'must be equal to one of the allowed values',
      },
    ]);
  });

  it('treats the list as a set: repeats are ignored', () => {
    expect(compiler.compile(['toneOfVoice', 'toneOfVoice'], 'input')).toBe(
      compiler.compile(['toneOfVoice'], 'input'),
    );
  });
});

describe('FacetContractCompiler: cache', () => {
  it('returns the cached object for the same facet set, cheaply', () => {
    const facets = ['copyVariants', 'writerBrief', 'planKnobs'];
    new FacetContractCompiler().compile(facets, 'output'); // Ajv validators now shared: cold below is merge + hash only
    const compiler = new FacetContractCompiler();
    const coldStart = performance.now();
    const first = compiler.compile(facets, 'output');
    const cold = performance.now() - coldStart;
    const again: unknown[] = [];
    const warmStart = performance.now();
    for (let i = 0; i < 10_000; i += 1)
      again.push(compiler.compile(['planKnobs', 'writerBrief', 'copyVariants'], 'output'));
    const warm = (performance.now() - warmStart) / 10_000;
    expect(again.every((compiled) => compiled === first)).toBe(true);
    expect(warm).toBeLessThan(cold / 5);
    expect(warm).toBeLessThan(0.05); // ms per cached compile
  });

  it('shares the validator between directions of one schema but keeps provenance apart', () => {
    const compiler = new FacetContractCompiler();
    const asInput = compiler.compile(['copyVariants'], 'input');
    const asOutput = compiler.compile(['copyVariants'], 'output');
    expect(asInput).not.toBe(asOutput);
    expect(asInput.hash).toBe(asOutput.hash);
  });
});

describe('FacetContractCompiler: validation errors name facet, pointer and keyword', () => {
  const compiled = new FacetContractCompiler().compile(['copyVariants', 'writerBrief'], 'output');
  const variant = { headline: 'h', body: 'b', callToAction: 'c' };
  const brief = { angle: 'a', keyPoints: ['k'], constraints: [] };

  it.each([
    ['valid', { copyVariants: [variant], writerBrief: brief }, []],
    ['missing facet', { copyVariants: [variant] }, [['writerBrief', '/writerBrief', 'required']]],
    [
      'nested failure',
      { copyVariants: [{ ...variant, body: '' }], writerBrief: brief },
      [['copyVariants', '/copyVariants/0/body', 'minLength']],
    ],
    [
      'extra top-level key',
      { copyVariants: [variant], writerBrief: brief, extra: 1 },
      [['', '/extra', 'additionalProperties']],
    ],
    ['not an object', 'text', [['', '', 'type']]],
    [
      'several at once',
      { copyVariants: [], writerBrief: { ...brief, keyPoints: [] } },
      [
        ['copyVariants', '/copyVariants', 'minItems'],
        ['writerBrief', '/writerBrief/keyPoints', 'minItems'],
      ],
    ],
  ])('%s', (_label, value, expected) => {
    expect(compiled.validate(value).map((e) => [e.facet, e.pointer, e.keyword])).toEqual(expected);
  });

  it('validateFacetOutputs / validateFacetInputs check the contract direction', () => {
    expect(validateFacetOutputs(compiled, { copyVariants: [variant], writerBrief: brief })).toEqual([]);
    expect(thrown(() => validateFacetInputs(compiled, {}))).toMatchObject({
      code: 'DIRECTION_MISMATCH',
      facets: ['copyVariants', 'writerBrief'],
    });
    const input = new FacetContractCompiler().compile(['toneOfVoice'], 'input');
    expect(validateFacetInputs(input, { toneOfVoice: 'shouty' })).toEqual([
      expect.objectContaining({ facet: 'toneOfVoice', pointer: '/toneOfVoice', keyword: 'enum' }),
    ]);
    expect(thrown(() => validateFacetOutputs(input, {}))).toMatchObject({ code: 'DIRECTION_MISMATCH' });
  });
});

describe('FacetContractCompiler: hostile values fail closed instead of throwing', () => {
  // Ajv's deep equality (enum, const, uniqueItems over objects) calls the value's own valueOf /
  // toString, which JSON can make non-functions.
  const hostileCatalog = new FacetCatalog([
    facet('preset', { type: 'object', enum: [{ mode: 'a' }, { mode: 'b' }] }, 'output'),
    facet('anchor', { type: 'object', const: { kind: 'fixed' } }, 'output'),
    facet('pairs', { type: 'array', uniqueItems: true, items: { type: 'object' } }, 'output'),
    facet('label', { type: 'string', minLength: 1 }, 'output'),
  ]);
  const names = ['anchor', 'label', 'pairs', 'preset'];
  const compiled = new FacetContractCompiler(hostileCatalog).compile(names, 'output');
  const fine = { preset: { mode: 'a' }, anchor: { kind: 'fixed' }, pairs: [{ a: 1 }, { a: 2 }], label: 'x' };

  it('accepts and rejects ordinary values as before', () => {
    expect(compiled.validate(fine)).toEqual([]);
    expect(compiled.validate({ ...fine, preset: { mode: 'c' } }).map((e) => e.keyword)).toEqual(['enum']);
  });

  it.each<[string, string, string]>([
    ['enum, own toString', 'preset', '{"toString": []}'],
    ['enum, own valueOf', 'preset', '{"mode": "a", "valueOf": 1}'],
    ['const, own valueOf', 'anchor', '{"valueOf": {}}'],
    ['uniqueItems, own toString', 'pairs', '[{"toString": 1}, {"toString": 1}]'],
  ])('%s: one unvalidatable error under the facet, the other facets still checked', (_label, key, text) => {
    const value = { ...fine, [key]: JSON.parse(text), label: '' };
    const errors = compiled.validate(value);
    expect(errors.map((e) => [e.facet, e.pointer, e.keyword])).toEqual(
      [
        [key, `/${key}`, 'unvalidatable'],
        ['label', '/label', 'minLength'],
      ].sort((a, b) => a[0].localeCompare(b[0])),
    );
    expect(errors.find((e) => e.keyword === 'unvalidatable')?.message).toMatch(/is not a function/);
    expect(() => validateFacetOutputs(compiled, value)).not.toThrow();
  });
});

describe('FacetContractCompiler: order independence (property)', () => {
  const inputFacets = getFacetCatalog()
    .list()
    .filter((d) => d.metadata.directionality !== 'output')
    .map((d) => d.name);

  it('gives the same hash and schema for any order and repetition of the same facets', () => {
    const permutations = fc
      .shuffledSubarray(inputFacets, { minLength: 1 })
      .chain((subset) =>
        fc.tuple(
          fc.constant(subset),
          fc.shuffledSubarray(subset, { minLength: subset.length }),
          fc.array(fc.constantFrom(...subset)),
        ),
      );
    fc.assert(
      fc.property(permutations, ([subset, reordered, repeats]) => {
        const a = new FacetContractCompiler().compile(subset, 'input');
        const b = new FacetContractCompiler().compile([...reordered, ...repeats], 'input');
        expect(b.hash).toBe(a.hash);
        expect(b.provenance).toEqual(a.provenance);
      }),
      { numRuns: 100 },
    );
  });

  it('holds when facets merge under a shared key', () => {
    const sharing = ['toneA', 'toneB', 'briefAngle', 'briefPoints'];
    const reference = new FacetContractCompiler(mergeCatalog).compile(sharing, 'input').hash;
    fc.assert(
      fc.property(fc.shuffledSubarray(sharing, { minLength: sharing.length }), (order) => {
        expect(new FacetContractCompiler(mergeCatalog).compile(order, 'input').hash).toBe(reference);
      }),
      { numRuns: 50 },
    );
  });
});
