import { DEFAULT_SECRET_KEY_PATTERN } from '@flex/contracts';
import { missingFields, reviewDraft } from './draft-review';

const pattern = new RegExp(DEFAULT_SECRET_KEY_PATTERN, 'i');
const valid = {
  objective: 'Summarize the quarter',
  inputs: { quarter: 'Q3' },
  outputContract: {
    schema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
  },
};

describe('reviewDraft: the gateway’s verdict and the missing-field guidance', () => {
  it('accepts a complete envelope and has nothing to ask', () => {
    expect(reviewDraft(valid, pattern)).toEqual({ validation: { valid: true, issues: [] }, missing: [] });
  });

  it('names every required field of an empty draft, with the paths the API uses', () => {
    const review = reviewDraft({}, pattern);
    expect(review.validation.valid).toBe(false);
    expect(review.validation.issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['objective', 'outputContract']),
    );
    expect(missingFields({}).map((m) => m.path)).toEqual(['objective', 'inputs', 'outputContract.schema']);
  });

  it('asks for the result’s fields and the required ones once a schema exists', () => {
    const draft = { ...valid, outputContract: { schema: { type: 'object' } } };
    expect(missingFields(draft).map((m) => m.path)).toEqual([
      'outputContract.schema.properties',
      'outputContract.schema.required',
    ]);
  });

  it('refuses what run.stream refuses: a removed verb, with its migration hint', () => {
    const draft = {
      ...valid,
      policies: { runtime: [{ id: 'p', trigger: { kind: 'manual' }, action: { type: 'goto', next: 'x' } }] },
    };
    const review = reviewDraft(draft, pattern);
    expect(review.validation.valid).toBe(false);
    expect(review.validation.issues[0]).toMatchObject({
      path: 'policies.runtime[0].action.type',
      hint: expect.stringMatching(/replan/),
    });
  });

  it('applies the output schema’s safety checks, as the gateway does', () => {
    const draft = {
      ...valid,
      outputContract: { schema: { type: 'object', properties: { a: { $ref: 'http://x' } } } },
    };
    const review = reviewDraft(draft, pattern);
    expect(review.validation.valid).toBe(false);
    expect(review.validation.issues[0].path).toMatch(/^outputContract\.schema/);
  });
});
