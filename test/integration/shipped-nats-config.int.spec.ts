import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityInboxPrefix, natsConnectionOptions } from '@flex/bus';
import { parseNatsTable, renderNatsServerConfig, type NatsTable } from '@flex/runtime';
import { startNats, type NatsTestServer } from '@flex/testing';
import { connect } from 'nats';

/**
 * The shipped permission table (deploy/nats/identities.json) on a real nats-server, as compose and
 * k8s hand it its secrets (each password in double quotes, in the variable the table names): every
 * shipped identity logs in and gets what its role needs, and nothing it does not.
 */
const ROOT = join(__dirname, '..', '..');

describe('the shipped NATS configuration on nats-server', () => {
  let server: NatsTestServer;
  let table: NatsTable;
  let certs: string;
  const passwords: Record<string, string> = {};
  const as = (name: string) =>
    connect({
      ...natsConnectionOptions(server.url, name, {
        user: name,
        password: passwords[name],
        tls: { caFile: join(certs, 'ca.crt') },
      }),
      reconnect: false,
    });

  beforeAll(async () => {
    certs = mkdtempSync(join(tmpdir(), 'flex-shipped-nats-'));
    expect(spawnSync('sh', [join(ROOT, 'deploy/nats/dev-certs.sh'), certs]).status).toBe(0);
    const shipped = JSON.parse(readFileSync(join(ROOT, 'deploy/nats/identities.json'), 'utf8'));
    // Only the certificate paths differ from the shipped file: here they are the test's.
    table = parseNatsTable({
      ...shipped,
      tls: { certFile: join(certs, 'tls.crt'), keyFile: join(certs, 'tls.key') },
    });
    const env: Record<string, string> = {};
    for (const identity of table.identities) {
      if (!identity.password || !('env' in identity.password))
        throw new Error(`${identity.name}: no password env`);
      // Characters nats-server would read as something else if the value were not quoted.
      passwords[identity.name] = `${randomBytes(12).toString('hex')}#true`;
      env[identity.password.env] = JSON.stringify(passwords[identity.name]);
    }
    server = await startNats({
      config: renderNatsServerConfig(table),
      env,
      probe: {
        user: 'gateway',
        pass: passwords.gateway,
        tls: { caFile: join(certs, 'ca.crt') },
        inboxPrefix: identityInboxPrefix('gateway'),
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(certs, { recursive: true, force: true });
  });

  it('every shipped identity logs in with its password; a wrong one is refused', async () => {
    for (const identity of table.identities) {
      const nc = await as(identity.name);
      await nc.flush();
      await nc.close();
    }
    passwords.intruder = 'whatever';
    await expect(as('intruder')).rejects.toMatchObject({ code: 'AUTHORIZATION_VIOLATION' });
  });

  it('services reach the JetStream API their consumers need; the agents identity does not', async () => {
    for (const service of ['gateway', 'executor']) {
      const nc = await as(service);
      await expect(nc.jetstreamManager()).resolves.toBeDefined();
      await nc.close();
    }
    const agents = await as('agents');
    await expect(agents.jetstreamManager()).rejects.toMatchObject({ code: 'PERMISSIONS_VIOLATION' });
    await agents.close();
  });
});
