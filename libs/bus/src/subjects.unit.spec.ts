import fc from 'fast-check';
import {
  agentInvokeSubject,
  decodeSubjectToken,
  encodeSubjectToken,
  eventSubject,
  eventsWildcard,
  registrySubjects,
  streamEventsWildcard,
} from './subjects';

describe('subject tokens', () => {
  it('keeps plain ids as they are and escapes everything else', () => {
    expect(encodeSubjectToken('run_42-a')).toBe('run_42-a');
    expect(encodeSubjectToken('writer.en')).toBe('writer~2Een');
    expect(encodeSubjectToken('a b*c>d~e$')).toBe('a~20b~2Ac~3Ed~7Ee~24');
    expect(encodeSubjectToken('é')).toBe('~C3~A9');
  });

  it('round-trips any non-empty string into a single safe token', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'binary' }), (value) => {
        const token = encodeSubjectToken(value);
        expect(token).toMatch(/^[A-Za-z0-9_~-]+$/);
        expect(decodeSubjectToken(token)).toBe(value);
      }),
    );
  });

  it('rejects tokens the encoder could not have produced', () => {
    for (const bad of ['', 'a.b', 'a*', '~2', '~zz', '~2e', '~41', '~C3', 'a b']) {
      expect(() => decodeSubjectToken(bad)).toThrow(
        expect.objectContaining({ code: 'INVALID_SUBJECT_TOKEN', retryable: false }),
      );
    }
    expect(() => encodeSubjectToken('')).toThrow(expect.objectContaining({ code: 'INVALID_SUBJECT_TOKEN' }));
  });
});

describe('subjects', () => {
  it('names event, agent and registry subjects under the prefix', () => {
    expect(eventSubject('flex', 'run.1', 'plan_requested')).toBe('flex.events.run~2E1.plan_requested');
    expect(streamEventsWildcard('flex', 'run.1')).toBe('flex.events.run~2E1.*');
    expect(eventsWildcard('acme.flex')).toBe('acme.flex.events.>');
    expect(agentInvokeSubject('flex', 'writer.en')).toBe('flex.agent.writer~2Een.invoke');
    expect(registrySubjects('flex')).toEqual({
      register: 'flex.registry.register',
      heartbeat: 'flex.registry.heartbeat',
      deregister: 'flex.registry.deregister',
      snapshot: 'flex.registry.snapshot',
    });
  });

  it('refuses a prefix that is not plain tokens joined by dots', () => {
    for (const bad of ['', 'a..b', 'flex.*', 'fl ex', '.flex', 'flex>']) {
      expect(() => eventsWildcard(bad)).toThrow(expect.objectContaining({ code: 'INVALID_BUS_OPTIONS' }));
    }
  });
});
