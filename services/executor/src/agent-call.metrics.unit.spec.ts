import fc from 'fast-check';
import { dispatchErrorKind } from './agent-call.metrics';

describe('dispatchErrorKind', () => {
  it('names the failures Flex knows and counts any code an agent chose as agent_error', () => {
    expect(
      ['TIMEOUT', 'NO_RESPONDERS', 'invalid_output', 'secret_unavailable'].map(dispatchErrorKind),
    ).toEqual(['timeout', 'no_responders', 'invalid_output', 'secret_unavailable']);
    const KINDS = [
      'timeout',
      'no_responders',
      'permission_denied',
      'invalid_input',
      'invalid_output',
      'secret_unavailable',
      'agent_error',
    ];
    fc.assert(fc.property(fc.string(), (code) => expect(KINDS).toContain(dispatchErrorKind(code))));
    expect(dispatchErrorKind('toString')).toBe('agent_error');
  });
});
