import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { referenceAgents } from '@flex/agents-reference';
import { identityInboxPrefix, NatsMessaging, type NatsAuthOptions } from '@flex/bus';
import {
  FLEX_SERVICES,
  parseNatsTable,
  renderNatsServerConfig,
  type NatsTable,
  type NatsTableInput,
} from '@flex/runtime';
import { startNats, type NatsTestServer } from '@flex/testing';
import { nkeys } from 'nats';

const ROOT = join(__dirname, '..', '..');
const quiet = { warn: () => undefined, error: () => undefined };

/** A nats-server run from a generated configuration, with TLS, and every identity's credentials. */
export interface AuthedNats {
  server: NatsTestServer;
  table: NatsTable;
  /** The CA the server's certificate chains to. */
  caFile: string;
  /** How `name` authenticates (password identities; `nkeySeed` for NKey ones). */
  auth(name: string): NatsAuthOptions;
  /** The env a Flex process of `name` gets (FLEX_NATS_URL, FLEX_NATS_USER, its secret, the CA). */
  env(name: string): Record<string, string>;
  connect(name: string): Promise<NatsMessaging>;
  stop(): Promise<void>;
}

/**
 * The agents of the test table: `writers` and `rogue` by password; `copycat` by NKey, allowed
 * writer.en too; `agents`, the reference agents' identity as shipped.
 */
export const AGENT_IDENTITIES = {
  writers: ['writer.en'],
  rogue: ['rogue.tool'],
  copycat: ['writer.en'],
} as const;

/**
 * Starts nats-server with the configuration `renderNatsServerConfig` makes of a table like the
 * shipped one (the five services, agents, an operator), passwords given the way the shipped
 * configurations give them (environment variables of the server), server TLS from the certificates
 * `deploy/nats/dev-certs.sh` makes. `extra` adds identities.
 */
export async function startAuthedNats(
  prefix: string,
  extra: NatsTableInput['identities'] = [],
): Promise<AuthedNats> {
  const certs = mkdtempSync(join(tmpdir(), 'flex-nats-tls-'));
  const made = spawnSync('sh', [join(ROOT, 'deploy/nats/dev-certs.sh'), certs], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`dev-certs.sh failed: ${made.stderr}`);
  const caFile = join(certs, 'ca.crt');
  const secrets: Record<string, string> = {};
  const password = (name: string) => {
    const env = `FLEX_TEST_NATS_PASSWORD_${name.toUpperCase().replace(/-/g, '_')}`;
    secrets[env] = randomBytes(18).toString('base64url');
    return { env };
  };
  const copycat = nkeys.createUser();
  const table = parseNatsTable({
    prefix,
    tls: { certFile: join(certs, 'tls.crt'), keyFile: join(certs, 'tls.key') },
    identities: [
      ...FLEX_SERVICES.map((service) => ({
        kind: 'service',
        name: service,
        service,
        password: password(service),
      })),
      {
        kind: 'agent',
        name: 'writers',
        capabilities: [...AGENT_IDENTITIES.writers],
        password: password('writers'),
      },
      {
        kind: 'agent',
        name: 'rogue',
        capabilities: [...AGENT_IDENTITIES.rogue],
        password: password('rogue'),
      },
      {
        kind: 'agent',
        name: 'copycat',
        capabilities: [...AGENT_IDENTITIES.copycat],
        nkey: { value: copycat.getPublicKey() },
      },
      {
        kind: 'agent',
        name: 'agents',
        capabilities: referenceAgents.map((a) => a.registration.capabilityId),
        password: password('agents'),
      },
      { kind: 'admin', name: 'ops', password: password('ops') },
      ...extra,
    ],
  });
  const secretOf = (name: string) =>
    secrets[`FLEX_TEST_NATS_PASSWORD_${name.toUpperCase().replace(/-/g, '_')}`] ?? '';
  const auth = (name: string): NatsAuthOptions =>
    name === 'copycat'
      ? { user: name, nkeySeed: new TextDecoder().decode(copycat.getSeed()), tls: { caFile } }
      : { user: name, password: secretOf(name), tls: { caFile } };
  // nats-server parses a variable's value as configuration text: the shipped configurations, like
  // this, hand it the secret in double quotes so it stays one string whatever its characters.
  const quoted = Object.fromEntries(Object.entries(secrets).map(([k, v]) => [k, JSON.stringify(v)]));
  const server = await startNats({
    config: renderNatsServerConfig(table),
    env: quoted,
    probe: {
      user: 'gateway',
      pass: secretOf('gateway'),
      tls: { caFile },
      inboxPrefix: identityInboxPrefix('gateway'),
    },
  });
  return {
    server,
    table,
    caFile,
    auth,
    env: (name) => ({
      FLEX_NATS_URL: server.url,
      FLEX_NATS_USER: name,
      FLEX_NATS_PASSWORD: secretOf(name),
      FLEX_NATS_TLS_CA: caFile,
    }),
    connect: (name) => NatsMessaging.connect(server.url, { auth: auth(name), logger: quiet, name }),
    async stop() {
      await server.stop();
      rmSync(certs, { recursive: true, force: true });
    },
  };
}
