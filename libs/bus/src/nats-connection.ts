import { readFileSync } from 'node:fs';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from 'nats';
import { InvalidBusOptionsError } from './errors';

/**
 * How a Flex process proves who it is to NATS (DESIGN §8: NATS is authenticated in every shipped
 * configuration). The server's permission table (`@flex/runtime` renders it) names what each
 * identity may publish and subscribe to.
 */
export interface NatsAuthOptions {
  /**
   * The identity's name: the NATS user (with `password`), or the name an NKey or credentials file
   * stands for. Its replies come back on `_INBOX.<user>.…`, the only inboxes it may read.
   */
  user?: string;
  password?: string;
  /** An NKey seed (`SU…`); the server knows the identity by the matching public key. */
  nkeySeed?: string;
  /** A credentials file (JWT and seed), for servers run in operator mode. */
  credsFile?: string;
  /** Trust `caFile` for the server's certificate; `certFile` + `keyFile` for mutual TLS. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string };
}

/** Identity names are single plain subject tokens: they appear in inbox and registry subjects. */
const IDENTITY = /^[A-Za-z0-9_-]{1,64}$/;

/** The inbox prefix of an identity: its permissions allow subscribing to `<prefix>.>` only. */
export function identityInboxPrefix(identity: string): string {
  return `_INBOX.${assertIdentityName(identity)}`;
}

export function assertIdentityName(identity: string): string {
  if (!IDENTITY.test(identity))
    throw new InvalidBusOptionsError(`NATS identity "${identity}" must be 1-64 characters of [A-Za-z0-9_-]`);
  return identity;
}

/**
 * How a Flex process reconnects, chosen so that after a NATS restart every process is back within
 * about half a second of the server (issue 16). The client's default waits 2 s between dials to a
 * server, counted from each client's own last dial, so clients came back up to ~1 s apart: an
 * executor back first found no agent and no registry yet. A 250 ms wait plus up to 250 ms of jitter
 * (which also keeps a thousand clients from dialling in one instant) brings them back together;
 * what still falls in the gap is waited for (`FLEX_UNREACHABLE_BUDGET_MS`), not failed. Reconnects
 * never stop (a process without NATS is useless; its readiness probe says so), and a process that
 * starts before NATS waits for it rather than exiting.
 */
const RECONNECT = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 250,
  reconnectJitter: 250,
  waitOnFirstConnect: true,
} as const satisfies ConnectionOptions;

/**
 * No stack captured when every request and timer starts: nats.js builds an Error up front for each
 * (to enrich a timeout that rarely comes), a cost on every agent call, registry question and
 * JetStream publish. Errors keep their code and message.
 */
const NO_ASYNC_TRACES = { noAsyncTraces: true } as const satisfies ConnectionOptions;

/** nats.js connection options for `servers`, as `name`, authenticated as `auth` says. Fails fast. */
export function natsConnectionOptions(
  servers: string,
  name: string,
  auth: NatsAuthOptions = {},
): ConnectionOptions {
  const methods = [auth.password !== undefined, auth.nkeySeed !== undefined, auth.credsFile !== undefined];
  if (methods.filter(Boolean).length > 1)
    throw new InvalidBusOptionsError('give one of a NATS password, an NKey seed or a credentials file');
  if ((auth.password !== undefined || auth.nkeySeed !== undefined) && auth.user === undefined)
    throw new InvalidBusOptionsError('a NATS password or NKey seed needs the identity name (user)');
  const options: ConnectionOptions = { servers, name, ...RECONNECT, ...NO_ASYNC_TRACES };
  if (auth.user !== undefined) options.inboxPrefix = identityInboxPrefix(auth.user);
  if (auth.password !== undefined) Object.assign(options, { user: auth.user, pass: auth.password });
  if (auth.nkeySeed !== undefined)
    options.authenticator = nkeyAuthenticator(new TextEncoder().encode(auth.nkeySeed));
  if (auth.credsFile !== undefined) options.authenticator = credsAuthenticator(readFileSync(auth.credsFile));
  if (auth.tls) options.tls = tlsOptions(auth.tls);
  return options;
}

function tlsOptions(tls: NonNullable<NatsAuthOptions['tls']>): NonNullable<ConnectionOptions['tls']> {
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined))
    throw new InvalidBusOptionsError('a NATS client certificate needs both certFile and keyFile');
  const out: NonNullable<ConnectionOptions['tls']> = {};
  if (tls.caFile !== undefined) out.caFile = tls.caFile;
  if (tls.certFile !== undefined) out.certFile = tls.certFile;
  if (tls.keyFile !== undefined) out.keyFile = tls.keyFile;
  return out;
}
