import fc from 'fast-check';
import { agentInvokeSubject, eventSubject, registryAgentSubject, registrySubjects } from '@flex/bus';
import { EVENT_PAYLOAD_SCHEMAS, type FlexEventType } from '@flex/contracts';
import { permissionsFor, type NatsLayout } from './nats-permissions';
import { FLEX_SERVICES, SERVICE_ROLES } from './service-roles';

const layout: NatsLayout = { prefix: 'flex', streamName: 'FLEX_EVENTS' };
const EVENT_TYPES = Object.keys(EVENT_PAYLOAD_SCHEMAS) as FlexEventType[];

/** nats-server's rule: `*` one token, a trailing `>` one or more; allowed when any pattern matches. */
function allows(patterns: readonly string[], subject: string): boolean {
  return patterns.some((pattern) => {
    const p = pattern.split('.');
    const s = subject.split('.');
    for (let i = 0; i < p.length; i++) {
      if (p[i] === '>') return s.length > i;
      if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
    }
    return p.length === s.length;
  });
}

const id = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/\p{Surrogate}/u.test(s));

describe('permissionsFor: services', () => {
  it.each(FLEX_SERVICES)('%s publishes exactly the event types it appends, on any stream', (service) => {
    const { publish } = permissionsFor(service, { kind: 'service', service }, layout);
    for (const type of EVENT_TYPES)
      expect({ type, allowed: allows(publish, eventSubject('flex', 'run-r1', type)) }).toEqual({
        type,
        allowed: SERVICE_ROLES[service].publishes.includes(type),
      });
  });

  it('every event type has a service that may publish it, so every outbox row has a relay', () => {
    const published = new Set(FLEX_SERVICES.flatMap((s) => SERVICE_ROLES[s].publishes));
    expect(EVENT_TYPES.filter((t) => !published.has(t) && t !== 'log')).toEqual([]);
  });

  it.each(FLEX_SERVICES)(
    '%s uses its own durable consumer only, and may not change or delete the stream',
    (service) => {
      const { publish, subscribe } = permissionsFor(service, { kind: 'service', service }, layout);
      for (const other of FLEX_SERVICES.filter((s) => s !== service)) {
        expect(allows(publish, `$JS.API.CONSUMER.MSG.NEXT.FLEX_EVENTS.${other}`)).toBe(false);
        expect(allows(publish, `$JS.API.CONSUMER.CREATE.FLEX_EVENTS.${other}.flex.events.>`)).toBe(false);
        expect(allows(publish, `$JS.ACK.FLEX_EVENTS.${other}.1.2.3.4.5`)).toBe(false);
      }
      const consumes = SERVICE_ROLES[service].consumes;
      expect(allows(publish, `$JS.API.CONSUMER.MSG.NEXT.FLEX_EVENTS.${service}`)).toBe(consumes);
      for (const api of [
        'STREAM.UPDATE',
        'STREAM.DELETE',
        'STREAM.PURGE',
        'STREAM.MSG.GET',
        'STREAM.MSG.DELETE',
      ])
        expect(allows(publish, `$JS.API.${api}.FLEX_EVENTS`)).toBe(false);
      expect(allows(publish, '$JS.API.CONSUMER.CREATE.FLEX_EVENTS')).toBe(false); // no ephemeral readers
      expect(allows(subscribe, '_INBOX.x')).toBe(false);
      expect(allows(subscribe, `_INBOX.${service}.abc.1`)).toBe(true);
      expect(allows(subscribe, '_INBOX.other.abc.1')).toBe(false);
    },
  );

  it('only the registry serves the registry, and only the executor invokes agents', () => {
    for (const service of FLEX_SERVICES) {
      const p = permissionsFor(service, { kind: 'service', service }, layout);
      expect(allows(p.subscribe, registryAgentSubject('flex', 'register', 'a', 'b'))).toBe(
        service === 'registry',
      );
      expect(p.allowResponses).toBe(service === 'registry');
      expect(allows(p.publish, agentInvokeSubject('flex', 'writer.en'))).toBe(service === 'executor');
      expect(allows(p.subscribe, agentInvokeSubject('flex', 'writer.en'))).toBe(false);
      expect(allows(p.publish, registrySubjects('flex').assignOwner)).toBe(service === 'gateway');
      expect(allows(p.publish, registrySubjects('flex').changed)).toBe(service === 'registry');
      expect(allows(p.subscribe, registrySubjects('flex').changed)).toBe(
        SERVICE_ROLES[service].asks.includes('snapshot'),
      );
    }
  });
});

describe('permissionsFor: agents and operators', () => {
  it('an agent serves, registers, heartbeats and deregisters only its capabilities, only as itself (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { minLength: 1, maxLength: 4 }), id, id, (mine, other, someone) => {
        const p = permissionsFor('writers', { kind: 'agent', capabilities: mine }, layout);
        const owns = mine.includes(other);
        expect(allows(p.subscribe, agentInvokeSubject('flex', other))).toBe(owns);
        for (const verb of ['register', 'heartbeat', 'deregister'] as const) {
          expect(allows(p.publish, registryAgentSubject('flex', verb, 'writers', other))).toBe(owns);
          if (someone !== 'writers')
            expect(allows(p.publish, registryAgentSubject('flex', verb, someone, mine[0]))).toBe(false);
        }
        expect(allows(p.publish, eventSubject('flex', 'run-r1', 'complete'))).toBe(false);
        expect(allows(p.publish, '$JS.API.INFO')).toBe(false);
        expect(allows(p.subscribe, 'flex.events.run-r1.complete')).toBe(false);
        expect(p.allowResponses).toBe(true);
      }),
    );
  });

  it('operators run JetStream and read anything, but publish no event', () => {
    const p = permissionsFor('ops', { kind: 'admin' }, layout);
    expect(allows(p.publish, '$JS.API.STREAM.UPDATE.FLEX_EVENTS')).toBe(true);
    expect(allows(p.subscribe, 'flex.events.run-r1.complete')).toBe(true);
    for (const type of EVENT_TYPES) expect(allows(p.publish, eventSubject('flex', 'r', type))).toBe(false);
    expect(allows(p.publish, registryAgentSubject('flex', 'register', 'ops', 'x'))).toBe(false);
  });
});
