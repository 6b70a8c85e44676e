import { defineAgent } from './define-agent';

const registration = {
  capabilityId: 'writer.en',
  version: '1',
  displayName: 'Writer',
  summary: 'Writes.',
  inputContract: ['writerBrief'],
  outputContract: ['copyVariants'],
};
const handle = async () => ({});

describe('defineAgent', () => {
  it('parses the registration once, with defaults, and freezes the definition', () => {
    const agent = defineAgent({ registration, handle });
    expect(agent.registration.agentType).toBe('ai');
    expect(Object.isFrozen(agent)).toBe(true);
  });

  it('fails fast on a registration the registry would refuse', () => {
    expect(() =>
      defineAgent({ registration: { ...registration, capabilityId: 'has space' }, handle }),
    ).toThrow(/capabilityId/);
    expect(() => defineAgent({ registration: { ...registration, extra: true } as never, handle })).toThrow(
      /invalid registration/,
    );
  });

  it('fails fast on facets the catalog does not know or that flow the wrong way', () => {
    expect(() =>
      defineAgent({ registration: { ...registration, inputContract: ['noSuchFacet'] }, handle }),
    ).toThrow(expect.objectContaining({ code: 'FACET_NOT_FOUND' }));
    expect(() =>
      defineAgent({ registration: { ...registration, outputContract: ['toneOfVoice'] }, handle }),
    ).toThrow(expect.objectContaining({ code: 'DIRECTION_MISMATCH' }));
  });
});
