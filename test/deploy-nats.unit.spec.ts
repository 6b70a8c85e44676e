/**
 * NATS in the shipped deployments: the generated configuration is the table's (compose and k8s
 * run the same text), each Flex process connects as its own identity with only its own password,
 * over TLS, and NetworkPolicies keep everyone but Flex's pods away from NATS and Postgres. Docker
 * and Kubernetes do not run here: these checks are what keeps the files honest.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { referenceAgents } from '@flex/agents-reference';
import { FLEX_SERVICES, parseNatsTable, renderNatsServerConfig } from '@flex/runtime';
import { parseAllDocuments } from 'yaml';
import { mountedConfigFile, natsServerConfig } from './deploy-manifests';

type Obj = Record<string, any>;
const ROOT = path.resolve(__dirname, '..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const yamlDocs = (rel: string, merge = false): Obj[] =>
  parseAllDocuments(read(rel), { merge }).flatMap((d) => {
    const problems = [...d.errors, ...d.warnings];
    if (problems.length) throw new Error(`${rel}: ${problems.map((e) => e.message).join('; ')}`);
    const v = d.toJS();
    return v ? [v] : [];
  });

const table = parseNatsTable(JSON.parse(read('deploy/nats/identities.json')));
const rendered = renderNatsServerConfig(table);
const k8s = fs
  .readdirSync(path.join(ROOT, 'deploy/k8s'))
  .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
  .flatMap((f) => yamlDocs(`deploy/k8s/${f}`));
const compose: Obj = yamlDocs('docker-compose.yml', true)[0];
const COMPONENTS = [...FLEX_SERVICES, 'agents'] as const;
const identityOf = (component: string) => table.identities.find((i) => i.name === component);
const passwordEnv = (component: string) => {
  const credential = identityOf(component)?.password;
  return credential && 'env' in credential ? credential.env : undefined;
};
const deployment = (name: string): Obj =>
  k8s.find((o) => o.kind === 'Deployment' && o.metadata.name === name) ?? {};
const container = (workload: Obj): Obj => workload.spec.template.spec.containers[0];
const envOf = (c: Obj, name: string): Obj | undefined => (c.env ?? []).find((e: Obj) => e.name === name);
const natsSts = k8s.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'nats') ?? {};

describe('the permission table and the generated configuration', () => {
  it('deploy/nats/nats.conf and the nats-config ConfigMap are what the table renders (run `npm run nats:config`)', () => {
    expect(read('deploy/nats/nats.conf')).toBe(rendered);
    const configMap = k8s.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'nats-config');
    expect(configMap?.data?.['nats.conf']).toBe(rendered);
  });

  it('has an identity per service, the reference agents with exactly their capabilities, and operators', () => {
    for (const service of FLEX_SERVICES)
      expect(identityOf(service)).toMatchObject({ kind: 'service', service });
    expect(identityOf('agents')).toEqual(
      expect.objectContaining({
        kind: 'agent',
        capabilities: referenceAgents.map((a) => a.registration.capabilityId),
      }),
    );
    expect(table.identities.filter((i) => i.kind === 'admin')).toHaveLength(1);
    // Every secret is an environment variable of the server: the shipped files hold none.
    for (const identity of table.identities) expect(identity.password ?? identity.nkey).toHaveProperty('env');
  });

  it('is for the prefix the deployments use, and turns TLS on', () => {
    const flexConfig =
      k8s.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'flex-config')?.data ?? {};
    expect(flexConfig.FLEX_NATS_PREFIX).toBe(table.prefix);
    expect(compose['x-flex-env'].FLEX_NATS_PREFIX).toBe(table.prefix);
    expect(compose.services.agents.environment.FLEX_NATS_PREFIX).toBe(table.prefix);
    expect(table.tls).toMatchObject({ certFile: expect.any(String), keyFile: expect.any(String) });
  });
});

describe('docker-compose.yml', () => {
  const nats = compose.services.nats;
  const mountOf = (target: string) => (nats.volumes as string[]).find((v) => v.split(':')[1] === target);

  it('runs nats-server with the generated file and the TLS directory the file names', () => {
    const cmd: string[] = nats.command;
    const conf = cmd[cmd.indexOf('-c') + 1];
    expect(mountOf(conf)?.split(':')[0]).toBe('./deploy/nats/nats.conf');
    const tlsDir = path.posix.dirname(table.tls?.certFile ?? '');
    expect(mountOf(tlsDir)?.split(':')[0]).toBe('./deploy/nats/tls');
    expect(path.posix.dirname(table.tls?.keyFile ?? '')).toBe(tlsDir);
  });

  it('gives nats every password the table names, each in double quotes, with no default', () => {
    const expected = table.identities.map((i) => (i.password && 'env' in i.password ? i.password.env : ''));
    expect(Object.keys(nats.environment).sort()).toEqual([...expected].sort());
    for (const name of expected)
      expect(nats.environment[name]).toMatch(new RegExp(`^"\\$\\{${name}:\\?[^}]+\\}"$`));
  });

  it.each(COMPONENTS)(
    '%s connects as its own identity, with only its own password, trusting the CA',
    (name) => {
      const env: Obj = compose.services[name].environment;
      expect(env.FLEX_NATS_USER).toBe(name);
      expect(env.FLEX_NATS_PASSWORD).toMatch(new RegExp(`^\\$\\{${passwordEnv(name)}:\\?`));
      expect(Object.keys(env).filter((k) => k.startsWith('FLEX_NATS_PASSWORD_'))).toEqual([]);
      const ca = env.FLEX_NATS_TLS_CA;
      expect(compose.services[name].volumes).toContain(`./deploy/nats/tls/ca.crt:${ca}:ro`);
    },
  );
});

describe('deploy/k8s', () => {
  it('runs nats-server with the nats-config ConfigMap (included by its cluster config) and the nats-tls Secret where the file names them', () => {
    const c = container(natsSts);
    const volumes: Obj[] = natsSts.spec.template.spec.volumes;
    const mountAt = (p: string) => (c.volumeMounts as Obj[]).find((m) => m.mountPath === p);
    const volume = (name: string) => volumes.find((v) => v.name === name) ?? {};
    const { includes } = natsServerConfig(natsSts, k8s);
    expect(includes).toHaveLength(1);
    expect(mountedConfigFile(natsSts, includes[0], k8s)).toEqual({
      configMap: 'nats-config',
      key: 'nats.conf',
      text: rendered,
    });
    const tlsDir = path.posix.dirname(table.tls?.certFile ?? '');
    expect(volume(mountAt(tlsDir)?.name).secret?.secretName).toBe('nats-tls');
  });

  it('gives nats every password, each the Secret’s value in double quotes', () => {
    const c = container(natsSts);
    for (const identity of table.identities) {
      const name = identity.password && 'env' in identity.password ? identity.password.env : '';
      const quoted = envOf(c, name)?.value as string;
      const raw = /^"\$\(([A-Z_]+)\)"$/.exec(quoted ?? '')?.[1] ?? '';
      expect({ name, secret: envOf(c, raw)?.valueFrom?.secretKeyRef }).toEqual({
        name,
        secret: { name: 'flex-secrets', key: name },
      });
      // Kubernetes expands $(NAME) only of variables declared before.
      expect((c.env as Obj[]).findIndex((e) => e.name === raw)).toBeLessThan(
        (c.env as Obj[]).findIndex((e) => e.name === name),
      );
    }
  });

  it.each(COMPONENTS)(
    '%s connects as its own identity, with only its own password, trusting the CA',
    (name) => {
      const d = deployment(name);
      const c = container(d);
      expect(envOf(c, 'FLEX_NATS_USER')?.value).toBe(name);
      expect(envOf(c, 'FLEX_NATS_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
        name: 'flex-secrets',
        key: passwordEnv(name),
      });
      const secretKeys = (c.env as Obj[]).map((e) => e.valueFrom?.secretKeyRef?.key).filter(Boolean);
      expect(secretKeys.filter((k: string) => k.startsWith('FLEX_NATS_PASSWORD_'))).toEqual([
        passwordEnv(name),
      ]);
      const ca = k8s.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'flex-config')?.data
        ?.FLEX_NATS_TLS_CA;
      const mount = (c.volumeMounts as Obj[]).find((m) => ca?.startsWith(`${m.mountPath}/`));
      const volume = (d.spec.template.spec.volumes as Obj[]).find((v) => v.name === mount?.name);
      expect(volume?.secret).toEqual({
        secretName: 'nats-tls',
        items: [{ key: 'ca.crt', path: path.posix.basename(ca ?? '') }],
      });
    },
  );

  it('the server certificate is issued into nats-tls for the host pods connect to', () => {
    const cert = k8s.find((o) => o.kind === 'Certificate' && o.spec.secretName === 'nats-tls');
    const url = new URL(k8s.find((o) => o.metadata.name === 'flex-config')?.data?.FLEX_NATS_URL);
    expect(cert?.spec.dnsNames).toContain(url.hostname);
    expect(cert?.spec.usages).toContain('server auth');
  });

  const policyFor = (app: string) =>
    k8s.find(
      (o) => o.kind === 'NetworkPolicy' && o.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === app,
    );
  const allowedPeers = (policy: Obj | undefined) =>
    (policy?.spec.ingress as Obj[]).flatMap((rule) =>
      (rule.from as Obj[]).flatMap((peer) => {
        expect(peer.namespaceSelector).toBeUndefined(); // this namespace only
        return peer.podSelector.matchExpressions.flatMap((e: Obj) => e.values);
      }),
    );

  it('only the Flex pods reach NATS, and only its client port; the NATS servers alone reach the cluster port', () => {
    const policy = policyFor('nats');
    expect(policy?.spec.policyTypes).toEqual(['Ingress']);
    const peersOf = (port: number) =>
      allowedPeers({
        spec: { ingress: policy?.spec.ingress.filter((r: Obj) => r.ports.some((p: Obj) => p.port === port)) },
      });
    expect([...peersOf(4222)].sort()).toEqual([...COMPONENTS].sort());
    expect(peersOf(6222)).toEqual(['nats']);
    expect(policy?.spec.ingress.flatMap((r: Obj) => r.ports.map((p: Obj) => p.port)).sort()).toEqual([
      4222, 6222,
    ]);
    for (const name of COMPONENTS)
      expect(deployment(name).spec.template.metadata.labels['app.kubernetes.io/name']).toBe(name);
  });

  it('only the five services reach the dev overlay’s Postgres: the agents never do', () => {
    const dev = yamlDocs('deploy/k8s/dev/postgres.yaml');
    const policy = dev.find(
      (o) =>
        o.kind === 'NetworkPolicy' &&
        o.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] === 'postgres',
    );
    expect([...allowedPeers(policy)].sort()).toEqual([...FLEX_SERVICES].sort());
    expect(policy?.spec.ingress.flatMap((r: Obj) => r.ports.map((p: Obj) => p.port))).toEqual([5432]);
    const pg = dev.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'postgres');
    expect(pg?.spec.template.metadata.labels['app.kubernetes.io/name']).toBe('postgres');
  });
});
