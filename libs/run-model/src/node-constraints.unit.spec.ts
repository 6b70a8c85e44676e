import { constraintRoots } from './node-constraints';

describe('constraintRoots', () => {
  it('names the top-level facets a rule reads, leaving out the item-relative vars of quantifiers', () => {
    expect(constraintRoots({ '>=': [{ var: 'qaFindings.overallScore' }, 0.8] })).toEqual(['qaFindings']);
    expect(
      constraintRoots({ all: [{ var: 'copyVariants' }, { '<=': [{ var: 'callToAction.length' }, 400] }] }),
    ).toEqual(['copyVariants']);
    expect(
      constraintRoots({
        and: [
          { '!': { missing: ['x'] } },
          { '==': [{ var: ['copyVariants.length', 0] }, { var: 'planKnobs.variantCount' }] },
        ],
      }),
    ).toEqual(['copyVariants', 'planKnobs']);
    expect(
      constraintRoots({
        reduce: [{ var: 'copyVariants' }, { '+': [{ var: 'accumulator' }, 1] }, { var: 'base.start' }],
      }),
    ).toEqual(['base', 'copyVariants']);
  });
});
