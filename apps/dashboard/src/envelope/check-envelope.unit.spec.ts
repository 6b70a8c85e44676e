import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkEnvelope } from './check-envelope';

const sample = readFileSync(join(__dirname, '../../../../examples/envelope.json'), 'utf8');

describe('checkEnvelope: the contract’s verdict on the editor’s text', () => {
  it('accepts the sample envelope and reports its legacy fields’ normalization', () => {
    const check = checkEnvelope(sample);
    expect(check.kind).toBe('valid');
    if (check.kind === 'valid') expect(check.changes.map((c) => c.path)).toContain('policies.brandVoice');
  });

  it('names each problem with its path, as the API does', () => {
    const envelope = JSON.parse(sample);
    envelope.objective = '';
    delete envelope.outputContract;
    const check = checkEnvelope(JSON.stringify(envelope));
    expect(check.kind).toBe('invalid');
    if (check.kind === 'invalid')
      expect(check.issues.map((i) => i.path)).toEqual(
        expect.arrayContaining(['objective', 'outputContract']),
      );
  });

  it('says where the text stops being JSON, and that a secret will be stored', () => {
    expect(checkEnvelope('{"objective": }')).toMatchObject({ kind: 'not_json', message: expect.any(String) });
    expect(checkEnvelope('  ')).toEqual({ kind: 'empty' });
    const envelope = JSON.parse(sample);
    envelope.inputs.apiKey = 'k';
    expect(checkEnvelope(JSON.stringify(envelope))).toMatchObject({
      kind: 'valid',
      secretPaths: ['inputs.apiKey'],
    });
  });
});
