import { describeIssues, validateRegistration } from './registration.validate';

const valid = {
  capabilityId: 'writer.en',
  version: '1',
  displayName: 'Writer',
  summary: 'Writes.',
  inputContract: ['writerBrief', 'toneOfVoice'],
  outputContract: ['copyVariants'],
};

describe('validateRegistration', () => {
  it('accepts a registration over catalog facets and defaults agentType to ai', () => {
    const check = validateRegistration(valid);
    expect(check).toEqual({
      ok: true,
      registration: expect.objectContaining({ capabilityId: 'writer.en', agentType: 'ai' }),
    });
  });

  it.each([
    ['a NUL in the summary', { summary: 'Wri\u0000tes.' }, 'summary'],
    ['a lone surrogate in the display name', { displayName: 'Writer \uD83D' }, 'displayName'],
  ])('refuses text Postgres cannot store (%s), naming the path', (_name, patch, path) => {
    const check = validateRegistration({ ...valid, ...patch });
    expect(check).toMatchObject({
      ok: false,
      issues: [{ path, code: 'invalid_registration', message: expect.stringMatching(/cannot be stored/) }],
    });
  });

  it.each([
    [
      'an unknown input facet',
      { inputContract: ['writerBrief', 'noSuchFacet'] },
      'inputContract[1]',
      'unknown_facet',
      /noSuchFacet is not in the catalog/,
    ],
    [
      'an unknown output facet',
      { outputContract: ['madeUp'] },
      'outputContract[0]',
      'unknown_facet',
      /madeUp/,
    ],
    [
      'an input-only facet as output',
      { outputContract: ['copyVariants', 'objectiveBrief'] },
      'outputContract[1]',
      'direction_mismatch',
      /input-only/,
    ],
    [
      'an output-only facet as input',
      { inputContract: ['qaFindings'] },
      'inputContract[0]',
      'direction_mismatch',
      /output-only/,
    ],
    [
      'an empty output contract',
      { outputContract: [] },
      'outputContract',
      'missing_output_contract',
      /at least one facet/,
    ],
    [
      'no output contract',
      { outputContract: undefined },
      'outputContract',
      'missing_output_contract',
      /at least one facet/,
    ],
    [
      'a heartbeat timeout below its interval',
      { heartbeat: { intervalSeconds: 10, timeoutSeconds: 5 } },
      'heartbeat.timeoutSeconds',
      'invalid_registration',
      /at least intervalSeconds/,
    ],
    ['an unknown field', { colour: 'red' }, '(root)', 'invalid_registration', /colour/],
  ])('rejects %s, naming the path', (_name, change, path, code, message) => {
    const check = validateRegistration({ ...valid, ...change });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path, code, message: expect.stringMatching(message) }),
      ]),
    );
    expect(describeIssues(check.issues)).toContain(`${path}: `);
  });
});
