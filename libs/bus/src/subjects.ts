import { InvalidBusOptionsError, InvalidSubjectTokenError } from './errors';

/**
 * Ids become single subject tokens: [A-Za-z0-9_-] stay as they are, every other UTF-8 byte
 * becomes `~XX` (uppercase hex). No dots, spaces or wildcards survive, and the mapping is a
 * bijection: `decodeSubjectToken` rejects anything `encodeSubjectToken` could not have produced.
 */
const PLAIN = /^[A-Za-z0-9_-]$/;
const ESCAPE = '~';
const PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const LONE_SURROGATE = /\p{Surrogate}/u;
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function encodeSubjectToken(value: string): string {
  if (value.length === 0) throw new InvalidSubjectTokenError(value, 'ids must not be empty');
  if (LONE_SURROGATE.test(value)) throw new InvalidSubjectTokenError(value, 'not well-formed UTF-16');
  let out = '';
  for (const char of value) {
    if (PLAIN.test(char)) {
      out += char;
      continue;
    }
    for (const byte of utf8.encode(char)) out += ESCAPE + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

export function decodeSubjectToken(token: string): string {
  if (token.length === 0) throw new InvalidSubjectTokenError(token, 'empty');
  const bytes: number[] = [];
  for (let i = 0; i < token.length; i++) {
    const char = token[i];
    if (char !== ESCAPE) {
      if (!PLAIN.test(char)) throw new InvalidSubjectTokenError(token, `"${char}" must be escaped`);
      bytes.push(char.charCodeAt(0));
      continue;
    }
    const hex = token.slice(i + 1, i + 3);
    if (!/^[0-9A-F]{2}$/.test(hex)) throw new InvalidSubjectTokenError(token, `bad escape at ${i}`);
    const byte = parseInt(hex, 16);
    if (byte < 0x80 && PLAIN.test(String.fromCharCode(byte)))
      throw new InvalidSubjectTokenError(token, `needless escape at ${i}`);
    bytes.push(byte);
    i += 2;
  }
  try {
    return strictUtf8.decode(new Uint8Array(bytes));
  } catch {
    throw new InvalidSubjectTokenError(token, 'escapes are not valid UTF-8');
  }
}

/** Fails fast on a prefix that is not one or more plain tokens joined by dots. */
export function assertSubjectPrefix(prefix: string): string {
  if (!PREFIX.test(prefix)) {
    throw new InvalidBusOptionsError(
      `subject prefix "${prefix}" must be tokens of [A-Za-z0-9_-] joined by dots`,
    );
  }
  return prefix;
}

/** `<prefix>.events.<streamId>.<type>`: where each committed event is published. */
export function eventSubject(prefix: string, streamId: string, type: string): string {
  return `${assertSubjectPrefix(prefix)}.events.${encodeSubjectToken(streamId)}.${encodeSubjectToken(type)}`;
}

/** Every event of one stream (what `watch` listens to). */
export function streamEventsWildcard(prefix: string, streamId: string): string {
  return `${assertSubjectPrefix(prefix)}.events.${encodeSubjectToken(streamId)}.*`;
}

/** Every event of one type, whatever its stream (a durable's filter when it handles only that type). */
export function eventTypeWildcard(prefix: string, type: string): string {
  return `${assertSubjectPrefix(prefix)}.events.*.${encodeSubjectToken(type)}`;
}

/** Every event (what the JetStream stream captures, and the filter of a durable handling every type). */
export function eventsWildcard(prefix: string): string {
  return `${assertSubjectPrefix(prefix)}.events.>`;
}

/** The JetStream stream that captures {@link eventsWildcard} by default: `FLEX_EVENTS` for `flex`. */
export function eventStreamName(prefix: string): string {
  return `${assertSubjectPrefix(prefix)
    .replace(/[^A-Za-z0-9_-]/g, '_')
    .toUpperCase()}_EVENTS`;
}

/** Request/reply subject of one capability; its instances serve it in a queue group. */
export function agentInvokeSubject(prefix: string, capabilityId: string): string {
  return `${assertSubjectPrefix(prefix)}.agent.${encodeSubjectToken(capabilityId)}.invoke`;
}

/** What an agent asks of the registry about one of its capabilities. */
export type RegistryAgentVerb = 'register' | 'heartbeat' | 'deregister';

/**
 * `<prefix>.registry.<verb>.<identity>.<capability>`: the subject names who asks and about what,
 * so NATS permissions can pin both (an agent identity may publish only its own identity token and
 * its own capabilities), and the registry reads the owner from the subject, not from the body.
 */
export function registryAgentSubject(
  prefix: string,
  verb: RegistryAgentVerb,
  identity: string,
  capabilityId: string,
): string {
  const base = `${assertSubjectPrefix(prefix)}.registry.${verb}`;
  return `${base}.${encodeSubjectToken(identity)}.${encodeSubjectToken(capabilityId)}`;
}

/** The identity and capability tokens of a {@link registryAgentSubject} (still encoded). */
export function registryAgentTokens(subject: string): { identity: string; capability: string } | undefined {
  const tokens = subject.split('.');
  if (tokens.length < 5) return undefined;
  return { identity: tokens[tokens.length - 2], capability: tokens[tokens.length - 1] };
}

/** What the registry serves: the agent verbs for every identity and capability, and its own requests. */
export interface RegistrySubjects {
  registerAll: string;
  heartbeatAll: string;
  deregisterAll: string;
  snapshot: string;
  /** An admin assigns a capability's owner (the gateway's admin endpoint, or the ops identity). */
  assignOwner: string;
  /** The registry's notice that a change is in its read model (core NATS, no payload that matters). */
  changed: string;
}

export function registrySubjects(prefix: string): RegistrySubjects {
  const base = `${assertSubjectPrefix(prefix)}.registry`;
  return {
    registerAll: `${base}.register.*.*`,
    heartbeatAll: `${base}.heartbeat.*.*`,
    deregisterAll: `${base}.deregister.*.*`,
    snapshot: `${base}.snapshot`,
    assignOwner: `${base}.owner.assign`,
    changed: `${base}.changed`,
  };
}

/**
 * `<prefix>.logs.<service>.<runId>`: a run's log lines from one service, for its SSE readers (core
 * NATS, live only). The service token lets NATS permissions pin each service to its own lines.
 */
export function runLogSubject(prefix: string, service: string, runId: string): string {
  return `${assertSubjectPrefix(prefix)}.logs.${encodeSubjectToken(service)}.${encodeSubjectToken(runId)}`;
}

/** Every service's log lines of one run (what a gateway's SSE stream of the run subscribes to). */
export function runLogsWildcard(prefix: string, runId: string): string {
  return `${assertSubjectPrefix(prefix)}.logs.*.${encodeSubjectToken(runId)}`;
}

/** Every run's log lines from one service (what that service may publish). */
export function serviceLogsWildcard(prefix: string, service: string): string {
  return `${assertSubjectPrefix(prefix)}.logs.${encodeSubjectToken(service)}.*`;
}

/** Every log line of every run (what may subscribe to them all). */
export function logsWildcard(prefix: string): string {
  return `${assertSubjectPrefix(prefix)}.logs.>`;
}
