import fc from 'fast-check';
import {
  agentInvokeSubject,
  decodeSubjectToken,
  encodeSubjectToken,
  eventSubject,
  eventsWildcard,
  eventStreamName,
  registryAgentSubject,
  registryAgentTokens,
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
      registerAll: 'flex.registry.register.*.*',
      heartbeatAll: 'flex.registry.heartbeat.*.*',
      deregisterAll: 'flex.registry.deregister.*.*',
      snapshot: 'flex.registry.snapshot',
      assignOwner: 'flex.registry.owner.assign',
      changed: 'flex.registry.changed',
    });
    expect(registryAgentSubject('flex', 'register', 'writers', 'writer.en')).toBe(
      'flex.registry.register.writers.writer~2Een',
    );
    expect(eventStreamName('acme.flex')).toBe('ACME_FLEX_EVENTS');
  });

  it('an agent subject names exactly one identity and one capability, whatever their text (property)', () => {
    const id = fc.string({ minLength: 1, maxLength: 40, unit: 'binary' });
    fc.assert(
      fc.property(
        id,
        id,
        fc.constantFrom('register', 'heartbeat', 'deregister' as const),
        (who, cap, verb) => {
          const subject = registryAgentSubject('acme.flex', verb, who, cap);
          expect(subject.split('.')).toHaveLength(6);
          const tokens = registryAgentTokens(subject);
          expect(
            tokens && [decodeSubjectToken(tokens.identity), decodeSubjectToken(tokens.capability)],
          ).toEqual([who, cap]);
        },
      ),
    );
  });

  it('refuses a prefix that is not plain tokens joined by dots', () => {
    for (const bad of ['', 'a..b', 'flex.*', 'fl ex', '.flex', 'flex>']) {
      expect(() => eventsWildcard(bad)).toThrow(expect.objectContaining({ code: 'INVALID_BUS_OPTIONS' }));
    }
  });
});
