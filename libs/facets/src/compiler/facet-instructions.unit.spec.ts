import { FacetCatalog, getFacetCatalog } from '@flex/contracts';
import { defaultFacetCompiler, instructionsFor, nodeInstructionsFor } from './default-compiler';
import { FacetContractCompiler } from './facet-contract.compiler';

const semantics = (name: string) => getFacetCatalog().get(name)?.semantics;

describe('instructionsFor', () => {
  it('composes the facets\u2019 semantics: inputs first, then outputs, each sorted by name', () => {
    expect(instructionsFor(['copyVariants', 'writerBrief', 'toneOfVoice'], 'output')).toBe(
      [
        'Inputs: the payload is a JSON object with these keys.',
        `- toneOfVoice (Tone of Voice): ${semantics('toneOfVoice')}`,
        '',
        'Outputs: reply with one JSON object holding exactly these keys: copyVariants, writerBrief.',
        `- copyVariants (Copy Variants): ${semantics('copyVariants')}`,
        `- writerBrief (Writer Brief): ${semantics('writerBrief')}`,
      ].join('\n'),
    );
  });

  it.each([
    [
      ['toneOfVoice', 'writerBrief', 'copyVariants'],
      ['copyVariants', 'toneOfVoice', 'writerBrief', 'toneOfVoice'],
    ],
    [
      ['qaRubric', 'qaFindings'],
      ['qaFindings', 'qaRubric'],
    ],
  ])('is deterministic whatever the order: %j', (a, b) => {
    expect(instructionsFor(a, 'input')).toBe(instructionsFor(b, 'input'));
  });

  it('describes a bidirectional facet in the direction asked for', () => {
    expect(instructionsFor(['writerBrief'], 'input')).toMatch(/^Inputs:/);
    expect(instructionsFor(['writerBrief'], 'output')).toMatch(/^Outputs:/);
  });

  it('refuses an unknown facet', () => {
    expect(() => instructionsFor(['toneOfVoice', 'mystery'], 'input')).toThrow(
      expect.objectContaining({ code: 'FACET_NOT_FOUND', facets: ['mystery'] }),
    );
  });
});

describe('nodeInstructionsFor', () => {
  it('places each list where the node uses it', () => {
    const text = nodeInstructionsFor({ input: ['writerBrief', 'toneOfVoice'], output: ['copyVariants'] });
    expect(
      text.split('\n\n').map((section) =>
        section
          .split('\n')
          .slice(1)
          .map((line) => line.split(' ')[1]),
      ),
    ).toEqual([['toneOfVoice', 'writerBrief'], ['copyVariants']]);
  });

  it('checks directions', () => {
    expect(() => nodeInstructionsFor({ input: ['qaFindings'] })).toThrow(
      expect.objectContaining({ code: 'DIRECTION_MISMATCH' }),
    );
  });

  it('is what a compiled contract carries for its own direction', () => {
    const compiled = defaultFacetCompiler().compile(['qaRubric', 'copyVariants'], 'input');
    expect(compiled.instruction).toBe(nodeInstructionsFor({ input: ['copyVariants', 'qaRubric'] }));
  });

  it('names the property key when a facet does not use its own name', () => {
    const catalog = new FacetCatalog([
      {
        name: 'brandTone',
        title: 'Brand Tone',
        description: 'Tone from the brand book.',
        schema: { type: 'string' },
        semantics: '  Match the brand book.  ',
        metadata: { version: 'v1', directionality: 'input' },
        propertyKey: 'tone',
      },
    ]);
    expect(new FacetContractCompiler(catalog).nodeInstructions({ input: ['brandTone'] })).toBe(
      'Inputs: the payload is a JSON object with these keys.\n- brandTone (Brand Tone) (under key "tone"): Match the brand book.',
    );
  });
});
