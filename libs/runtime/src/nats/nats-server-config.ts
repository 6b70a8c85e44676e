import { permissionsFor, type NatsPermissions, type NatsRole } from './nats-permissions';
import type { NatsIdentity, NatsSecret, NatsTable } from './nats-table';

/** The account every Flex identity lives in; JetStream is enabled for it alone. */
export const FLEX_ACCOUNT = 'FLEX';

const HEADER = [
  '# nats-server configuration of a Flex install: generated from the permission table by',
  '# `npm run nats:config` (libs/runtime renderNatsServerConfig). Do not edit by hand: edit the',
  '# table and regenerate; test/deploy-nats.unit.spec.ts fails when the two differ.',
  '#',
  '# Everything an identity is not allowed is denied. Secrets are environment variables of the',
  "# nats-server process ($NAME), never text in this file. nats-server reads a variable's value as",
  '# configuration text: give it the secret in double quotes ("s3cret"), or a value such as `true`',
  '# or one with a `#` is not the string it looks like.',
];

/**
 * Renders the table as a nats-server configuration: one account with JetStream, one user per
 * identity with its permissions, and server TLS when the table asks for it. Run the server with
 * `-js` (and `-sd`, `-m`) on the command line; those are not repeated here. Deterministic.
 */
export function renderNatsServerConfig(table: NatsTable): string {
  const layout = { prefix: table.prefix, streamName: table.streamName };
  const users = table.identities.map((identity) =>
    renderUser(identity, permissionsFor(identity.name, roleOf(identity), layout)),
  );
  const lines = [
    ...HEADER,
    `# prefix ${table.prefix}, event stream ${table.streamName}`,
    '',
    'accounts {',
    `  ${FLEX_ACCOUNT} {`,
    '    jetstream: enabled',
    '    users: [',
    ...users.flatMap((user) => user.map((line) => `      ${line}`)),
    '    ]',
    '  }',
    '}',
  ];
  if (table.tls) lines.push('', ...renderTls(table.tls));
  return `${lines.join('\n')}\n`;
}

export function roleOf(identity: NatsIdentity): NatsRole {
  switch (identity.kind) {
    case 'service':
      return { kind: 'service', service: identity.service };
    case 'agent':
      return { kind: 'agent', capabilities: identity.capabilities };
    case 'admin':
      return { kind: 'admin' };
  }
}

function renderUser(identity: NatsIdentity, permissions: NatsPermissions): string[] {
  const credential =
    identity.nkey !== undefined
      ? [`nkey: ${secret(identity.nkey)}`]
      : [`user: ${quote(identity.name)}`, `password: ${secret(identity.password)}`];
  return [
    `# ${identity.name}: ${describeRole(identity)}`,
    '{',
    ...credential.map((line) => `  ${line}`),
    '  permissions: {',
    ...allowList('publish', permissions.publish),
    ...allowList('subscribe', permissions.subscribe),
    ...(permissions.allowResponses ? ['    allow_responses: true'] : []),
    '  }',
    '}',
  ];
}

function describeRole(identity: NatsIdentity): string {
  switch (identity.kind) {
    case 'service':
      return `the ${identity.service} service`;
    case 'agent':
      return `an agent serving ${identity.capabilities.join(', ')}`;
    case 'admin':
      return 'operators';
  }
}

function renderTls(tls: NonNullable<NatsTable['tls']>): string[] {
  return [
    'tls {',
    `  cert_file: ${quote(tls.certFile)}`,
    `  key_file: ${quote(tls.keyFile)}`,
    ...(tls.caFile !== undefined ? [`  ca_file: ${quote(tls.caFile)}`] : []),
    `  verify: ${tls.verifyClients}`,
    '  timeout: 2',
    '}',
  ];
}

/** `$NAME` is resolved by nats-server from its environment (unquoted, or it would be literal text). */
function secret(value: NatsSecret | undefined): string {
  if (value === undefined) throw new Error('an identity without a credential');
  return 'env' in value ? `$${value.env}` : quote(value.value);
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** One subject per line: a change to the table reads as a one-line change of the config. */
function allowList(what: 'publish' | 'subscribe', subjects: readonly string[]): string[] {
  return [
    `    ${what}: {`,
    '      allow: [',
    ...subjects.map((subject, i) => `        ${quote(subject)}${i < subjects.length - 1 ? ',' : ''}`),
    '      ]',
    '    }',
  ];
}
