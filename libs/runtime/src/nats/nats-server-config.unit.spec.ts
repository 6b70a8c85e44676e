import { renderNatsServerConfig } from './nats-server-config';
import { parseNatsTable } from './nats-table';

const table = {
  prefix: 'flex',
  tls: { certFile: '/etc/nats/tls/tls.crt', keyFile: '/etc/nats/tls/tls.key' },
  identities: [
    { kind: 'service', name: 'gateway', service: 'gateway', password: { env: 'FLEX_NATS_PASSWORD_GATEWAY' } },
    {
      kind: 'agent',
      name: 'agents',
      capabilities: ['writer.en'],
      nkey: { value: 'UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4' },
    },
    { kind: 'admin', name: 'ops', password: { value: 'a-literal-one' } },
  ],
};

describe('parseNatsTable', () => {
  it('defaults the stream name from the prefix, as the bus names it', () => {
    expect(parseNatsTable({ ...table, prefix: 'acme.flex' }).streamName).toBe('ACME_FLEX_EVENTS');
  });

  it.each([
    ['a name used twice', { identities: [table.identities[0], table.identities[0]] }, 'identities.1.name'],
    ['no credential', { identities: [{ kind: 'admin', name: 'ops' }] }, 'identities.0'],
    [
      'two credentials',
      { identities: [{ kind: 'admin', name: 'ops', password: { env: 'P' }, nkey: { env: 'N' } }] },
      'identities.0',
    ],
    [
      'an API-token-like name',
      { identities: [{ kind: 'admin', name: 'tok_0123', password: { env: 'P' } }] },
      'identities.0.name',
    ],
    [
      'an agent without capabilities',
      { identities: [{ kind: 'agent', name: 'a', capabilities: [], password: { env: 'P' } }] },
      'identities.0.capabilities',
    ],
    [
      'an unknown service',
      { identities: [{ kind: 'service', name: 's', service: 'billing', password: { env: 'P' } }] },
      'identities.0.service',
    ],
    [
      'a short literal password',
      { identities: [{ kind: 'admin', name: 'ops', password: { value: 'x' } }] },
      'identities.0.password',
    ],
    ['a bad prefix', { prefix: 'flex.*' }, 'prefix'],
  ])('refuses %s, naming the path', (_name, change, path) => {
    expect(() => parseNatsTable({ ...table, ...change })).toThrow(
      new RegExp(`${path.replace(/\./g, '\\.')}\\b`),
    );
  });
});

describe('renderNatsServerConfig', () => {
  const config = renderNatsServerConfig(parseNatsTable(table));

  it('puts every identity in one JetStream account, secrets as unquoted environment references', () => {
    expect(config).toContain('accounts {\n  FLEX {\n    jetstream: enabled\n    users: [');
    expect(config).toContain('user: "gateway"\n        password: $FLEX_NATS_PASSWORD_GATEWAY\n');
    expect(config).toContain('nkey: "UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4"');
    expect(config).toContain('password: "a-literal-one"');
    expect(config).not.toMatch(/"\$FLEX_NATS_PASSWORD/);
  });

  it('lists each identity’s permissions, with allow_responses only for those that answer requests', () => {
    expect(config).toContain(
      'subscribe: {\n            allow: [\n              "_INBOX.agents.>",\n              "flex.agent.writer~2Een.invoke"\n            ]',
    );
    expect(config.match(/allow_responses: true/g)).toHaveLength(1);
  });

  it('turns server TLS on when the table asks, without demanding client certificates unless told', () => {
    expect(config).toContain(
      'tls {\n  cert_file: "/etc/nats/tls/tls.crt"\n  key_file: "/etc/nats/tls/tls.key"\n  verify: false',
    );
    expect(renderNatsServerConfig(parseNatsTable({ ...table, tls: undefined }))).not.toContain('tls {');
  });

  it('is deterministic: the same table renders the same text', () => {
    expect(renderNatsServerConfig(parseNatsTable(table))).toBe(config);
  });
});
