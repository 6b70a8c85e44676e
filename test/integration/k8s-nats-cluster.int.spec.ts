import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityInboxPrefix, NatsEventBus } from '@flex/bus';
import { parseNatsTable, renderNatsServerConfig } from '@flex/runtime';
import { freePort, startNats, waitFor, type NatsTestServer } from '@flex/testing';
import { connect } from 'nats';
import { kustomizationObjects, read } from '../deploy-manifests';

/**
 * deploy/k8s's NATS (nats.yaml) on three real nats-servers: the shipped cluster.conf, with only what
 * a pod has and this machine does not swapped in (the pods' DNS names → 127.0.0.1 ports, the
 * certificate and store paths → a temp dir, the included nats.conf inlined), forms a JetStream
 * cluster over mutually authenticated TLS routes, and the services' identity creates the event
 * stream with 3 replicas there, as FLEX_NATS_STREAM_REPLICAS=3 asks.
 */
const ROOT = join(__dirname, '..', '..');
const objects = kustomizationObjects('deploy/k8s').map((d) => d.obj);
const configMap = (name: string, key: string): string =>
  objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === name)?.data?.[key];

/** What nats-server's /jsz says of the JetStream meta group (the leader lists the replicas). */
interface Meta {
  cluster_size?: number;
  leader?: string;
  replicas?: { name: string; current?: boolean }[];
}

describe('the k8s JetStream cluster configuration on nats-server', () => {
  const servers: NatsTestServer[] = [];
  let certs: string;
  let stores: string;
  const password = `${randomBytes(12).toString('hex')}#true`;
  const auth = () => ({ user: 'gateway', password, tls: { caFile: join(certs, 'ca.crt') } });
  const asGateway = () => ({
    user: 'gateway',
    pass: password,
    tls: { caFile: join(certs, 'ca.crt') },
    inboxPrefix: identityInboxPrefix('gateway'),
  });

  beforeAll(async () => {
    certs = mkdtempSync(join(tmpdir(), 'flex-k8s-nats-'));
    stores = mkdtempSync(join(tmpdir(), 'flex-k8s-nats-store-'));
    expect(spawnSync('sh', [join(ROOT, 'deploy/nats/dev-certs.sh'), certs]).status).toBe(0);
    const shipped = JSON.parse(read('deploy/nats/identities.json'));
    const table = parseNatsTable({
      ...shipped,
      tls: { certFile: join(certs, 'tls.crt'), keyFile: join(certs, 'tls.key') },
    });
    expect(renderNatsServerConfig(parseNatsTable(shipped))).toBe(configMap('nats-config', 'nats.conf'));
    const env: Record<string, string> = {};
    for (const identity of table.identities)
      if (identity.password && 'env' in identity.password)
        env[identity.password.env] = JSON.stringify(password);
    const routePorts = await Promise.all([0, 1, 2].map(() => freePort()));
    const httpPorts = await Promise.all([0, 1, 2].map(() => freePort()));
    const cluster = configMap('nats-cluster', 'cluster.conf');
    const configFor = (i: number) =>
      cluster
        .replace(
          /nats-(\d)\.nats-headless\.flex\.svc\.cluster\.local:6222/g,
          (_m, n) => `127.0.0.1:${routePorts[Number(n)]}`,
        )
        .replace('listen: 0.0.0.0:6222', `listen: 127.0.0.1:${routePorts[i]}`)
        .replace('http_port: 8222', `http_port: ${httpPorts[i]}`)
        // startNats gives each server a store dir of its own (-sd).
        .replace(/\n\s*store_dir: \/data/, '')
        .replace('"/var/run/nats/nats.pid"', `"${join(stores, `nats-${i}.pid`)}"`)
        .replaceAll('/etc/nats/tls/', `${certs}/`)
        .replace('include ./nats.conf', renderNatsServerConfig(table));
    const started = await Promise.allSettled(
      [0, 1, 2].map((i) =>
        startNats({
          config: configFor(i),
          env: { ...env, POD_NAME: `nats-${i}` },
          probe: asGateway(),
        }),
      ),
    );
    for (const r of started) if (r.status === 'fulfilled') servers.push(r.value);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
    // Each server answers JetStream once a meta leader is elected, which 2 of 3 suffice for; a
    // 3-replica stream needs all three peers current in the meta group, so wait for that.
    let meta: unknown;
    await waitFor(
      async () => {
        const jsz = await Promise.all(
          httpPorts.map(
            (p) =>
              fetch(`http://127.0.0.1:${p}/jsz`).then((r) => r.json()) as Promise<{ meta_cluster?: Meta }>,
          ),
        );
        meta = jsz.map((j) => j.meta_cluster);
        // Only the leader lists the replicas; every server must know the same leader.
        const leader = jsz.find((j) => j.meta_cluster?.replicas);
        return (
          jsz.every(
            (j) =>
              j.meta_cluster?.cluster_size === 3 && j.meta_cluster.leader === leader?.meta_cluster?.leader,
          ) && leader?.meta_cluster?.replicas?.filter((r) => r.current).length === 2
        );
      },
      30_000,
      () => `the meta group never had 3 current peers: ${JSON.stringify(meta)}`,
    );
  }, 90_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(certs, { recursive: true, force: true });
    rmSync(stores, { recursive: true, force: true });
  });

  it('forms one cluster of 3 named by the pods, and the event stream gets 3 replicas', async () => {
    const bus = await NatsEventBus.connect({
      url: servers[1].url,
      auth: auth(),
      prefix: 'flex',
      replicas: 3,
    });
    const nc = await connect({ servers: servers[2].url, ...asGateway() });
    try {
      const info = await (await nc.jetstreamManager()).streams.info(bus.streamName);
      expect(info.config.num_replicas).toBe(3);
      const members = [info.cluster?.leader, ...(info.cluster?.replicas ?? []).map((r) => r.name)];
      expect(members.sort()).toEqual(['nats-0', 'nats-1', 'nats-2']);
      expect(info.cluster?.name).toBe('flex');
    } finally {
      await nc.close();
      await bus.close();
    }
    // Only the dials made before the other servers listened failed: no TLS, auth or permission error.
    const startingUp =
      /Error trying to connect to route \(attempt \d+\): dial tcp [\d.:]+: connect: connection refused/;
    for (const s of servers) expect(s.errors().filter((line) => !startingUp.test(line))).toEqual([]);
  }, 60_000);
});
