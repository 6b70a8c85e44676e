import type { AgentInvocation } from '@flex/agent-sdk';
import { askedSecretFacets, revealSecretInputs } from './secret-inputs';

const invocation: AgentInvocation = {
  runId: 'run_1',
  nodeId: 'n1',
  attempt: 1,
  idempotencyKey: 'run_1:n1:1',
  capabilityId: 'publisher',
  inputs: {
    credentials: { $secret: 's1' },
    assetBundle: [{ type: 'data', payload: { privateKey: { $secret: 's2' } } }],
  },
  outputFacets: ['writerBrief'],
  context: { objective: 'o', inputs: { credentials: { $secret: 's1' }, token: { $secret: 's2' } } },
};
const values = new Map<string, unknown>([
  ['s1', { githubToken: 'ghp_secret_value' }],
  ['s2', 'PEM'],
]);

describe('which secrets an invocation carries', () => {
  it('only the sensitive facets the capability declares; everything else keeps its reference', () => {
    const asked = askedSecretFacets(invocation, { inputContract: ['credentials', 'assetBundle'] });
    expect(asked).toEqual({ facets: ['credentials'], refused: [] });
    const revealed = revealSecretInputs(invocation, asked.facets, values);
    expect(revealed.inputs).toEqual({
      credentials: { githubToken: 'ghp_secret_value' },
      assetBundle: invocation.inputs.assetBundle,
    });
    expect(revealed.context).toBe(invocation.context);
    expect(invocation.inputs.credentials).toEqual({ $secret: 's1' });
  });

  it('a capability whose registration does not declare the facet (or is unknown) gets nothing', () => {
    expect(askedSecretFacets(invocation, { inputContract: ['assetBundle'] })).toEqual({
      facets: [],
      refused: ['credentials'],
    });
    expect(askedSecretFacets(invocation, undefined).refused).toEqual(['credentials']);
    const none = { ...invocation, inputs: { assetBundle: invocation.inputs.assetBundle } };
    expect(askedSecretFacets(none, undefined)).toEqual({ facets: [], refused: [] });
    expect(revealSecretInputs(none, [], values)).toBe(none);
  });
});
