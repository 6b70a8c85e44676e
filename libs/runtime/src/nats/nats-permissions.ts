import {
  agentInvokeSubject,
  encodeSubjectToken,
  eventsWildcard,
  identityInboxPrefix,
  logsWildcard,
  registryAgentSubject,
  registrySubjects,
  serviceLogsWildcard,
  type RegistryAgentVerb,
} from '@flex/bus';
import { SERVICE_ROLES, type FlexService, type ServiceRole } from './service-roles';

/** Where a Flex install lives on NATS: its subject prefix and its JetStream event stream. */
export interface NatsLayout {
  prefix: string;
  streamName: string;
}

/** One identity's rights, in nats-server's terms: everything not allowed is denied. */
export interface NatsPermissions {
  publish: string[];
  subscribe: string[];
  /** May answer requests it received (once each), whatever their reply subject. */
  allowResponses: boolean;
}

/** Who connects to NATS: a service, an agent serving named capabilities, or the operators. */
export type NatsRole =
  | { kind: 'service'; service: FlexService }
  | { kind: 'agent'; capabilities: readonly string[] }
  | { kind: 'admin' };

const AGENT_VERBS: readonly RegistryAgentVerb[] = ['register', 'heartbeat', 'deregister'];

/** The permissions of identity `name` in `role`: the only place the rules are written. */
export function permissionsFor(name: string, role: NatsRole, layout: NatsLayout): NatsPermissions {
  const inbox = `${identityInboxPrefix(name)}.>`;
  switch (role.kind) {
    case 'service':
      return servicePermissions(SERVICE_ROLES[role.service], role.service, inbox, layout);
    case 'agent':
      return agentPermissions(name, role.capabilities, inbox, layout.prefix);
    case 'admin':
      return adminPermissions(inbox, layout.prefix);
  }
}

/**
 * A service publishes its own event types (any stream: `<prefix>.events.*.<type>`) and its runs' log
 * lines (`<prefix>.logs.<service>.*`), reads replies on its own inbox only (a watcher also reads every
 * run's events and log lines), and of the JetStream API uses just what its durable pull consumer needs:
 * the stream's info and creation (not its update or deletion), its own consumer's creation, info
 * and next-message requests, and acks of its own consumer's messages.
 */
function servicePermissions(
  role: ServiceRole,
  durable: FlexService,
  inbox: string,
  { prefix, streamName: s }: NatsLayout,
): NatsPermissions {
  const registry = registrySubjects(prefix);
  const publish = [
    ...role.publishes.map((type) => `${prefix}.events.*.${encodeSubjectToken(type)}`),
    // Its own runs' log lines, for the SSE streams (core NATS, live only).
    serviceLogsWildcard(prefix, durable),
    '$JS.API.INFO',
    `$JS.API.STREAM.INFO.${s}`,
    `$JS.API.STREAM.CREATE.${s}`,
  ];
  if (role.consumes)
    publish.push(
      `$JS.API.CONSUMER.CREATE.${s}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${s}.${durable}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${s}.${durable}`,
      `$JS.API.CONSUMER.INFO.${s}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${s}.${durable}`,
      `$JS.ACK.${s}.${durable}.>`,
    );
  for (const ask of role.asks)
    publish.push(
      ask === 'register'
        ? registry.registerAll
        : ask === 'snapshot'
          ? registry.snapshot
          : registry.assignOwner,
    );
  if (role.invokesAgents) publish.push(`${prefix}.agent.*.invoke`);
  const subscribe = [inbox];
  // Who keeps the snapshot hears when it changes; the registry says so.
  if (role.asks.includes('snapshot')) subscribe.push(registry.changed);
  if (role.servesRegistry) publish.push(registry.changed);
  if (role.watches) subscribe.push(eventsWildcard(prefix), logsWildcard(prefix));
  if (role.servesRegistry)
    subscribe.push(
      registry.registerAll,
      registry.heartbeatAll,
      registry.deregisterAll,
      registry.snapshot,
      registry.assignOwner,
    );
  return { publish, subscribe, allowResponses: role.servesRegistry };
}

/**
 * An agent serves only its capabilities' invocation subjects (so it can join no other queue
 * group), answers the requests it gets, and registers, heartbeats and deregisters only those
 * capabilities, under its own name: the subject carries both, so it cannot speak for another.
 */
function agentPermissions(
  name: string,
  capabilities: readonly string[],
  inbox: string,
  prefix: string,
): NatsPermissions {
  const publish = capabilities.flatMap((id) =>
    AGENT_VERBS.map((verb) => registryAgentSubject(prefix, verb, name, id)),
  );
  const subscribe = [inbox, ...capabilities.map((id) => agentInvokeSubject(prefix, id))];
  return { publish, subscribe, allowResponses: true };
}

/**
 * Operators: the whole JetStream API (inspect, repair or delete the stream and its consumers), the
 * registry's snapshot and owner assignment, and reading any subject. Never an event: not even an
 * operator forges history.
 */
function adminPermissions(inbox: string, prefix: string): NatsPermissions {
  const registry = registrySubjects(prefix);
  return {
    publish: ['$JS.API.>', '$JS.ACK.>', registry.snapshot, registry.assignOwner],
    subscribe: [inbox, '>'],
    allowResponses: false,
  };
}
