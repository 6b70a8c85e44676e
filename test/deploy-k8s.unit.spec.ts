/**
 * deploy/k8s against the Kubernetes API schemas and against what the processes do: every object is
 * valid for its kind (the OpenAPI schemas of Kubernetes 1.27 as compiled by kubernetes-models, with
 * kubectl's strictness: no field the schema does not define), the scaled topology of issue 16 (every
 * service replicated, probed on paths it serves, limited, autoscaled, disruption-budgeted, given
 * time to drain), a JetStream cluster of 3, and compose naming the same services and settings.
 */
import { RequestMethod, type DynamicModule, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ExecutorModule } from '@flex/executor';
import { GatewayModule } from '@flex/gateway';
import { PlannerModule } from '@flex/planner';
import { RegistryModule } from '@flex/registry';
import { loadConfig, type ServiceRuntime } from '@flex/runtime';
import { ValidatorModule } from '@flex/validator';
import { kustomizationObjects, loadYaml, natsServerConfig, type Obj } from './deploy-manifests';

const base = kustomizationObjects('deploy/k8s');
const dev = kustomizationObjects('deploy/k8s/dev');
const objects = base.map((d) => d.obj);
const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
const flexConfig: Obj = ofKind('ConfigMap').find((c) => c.metadata.name === 'flex-config')!.data;
const compose: Obj = loadYaml('docker-compose.yml', { merge: true })[0];

/** The scaled topology the scale test runs (issue 16 §1): replicas of each component. */
const TOPOLOGY: Record<string, number> = {
  gateway: 2,
  registry: 2,
  planner: 2,
  validator: 2,
  executor: 3,
  agents: 2,
};
const COMPONENTS = Object.keys(TOPOLOGY);
const deployment = (name: string): Obj => ofKind('Deployment').find((d) => d.metadata.name === name)!;
const container = (workload: Obj): Obj => workload.spec.template.spec.containers[0];
const selects = (selector: Obj | undefined, labels: Obj) =>
  !!selector && Object.entries(selector).every(([k, v]) => labels[k] === v);

// ---------------------------------------------------------------------------------------------
// Schema validation
// ---------------------------------------------------------------------------------------------

interface KubernetesModel {
  prototype: { validate(): void };
}

/** The kubernetes-models class of an object's apiVersion and kind; undefined for a kind Kubernetes does not define. */
function modelOf(apiVersion: string, kind: string): KubernetesModel | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(`kubernetes-models/${apiVersion}`)[kind] as KubernetesModel | undefined;
  } catch {
    return undefined;
  }
}

/**
 * The schema errors of `obj`, then every field the schema does not define. The compiled validators
 * do not reject unknown fields (the API server drops them, kubectl refuses them), so the object is
 * handed to its validator behind a proxy that records which fields the validator reads: a field no
 * validator reads is one no schema defines (`readinesProbe`, `targetport`).
 */
function schemaProblems(obj: Obj): string[] {
  const model = modelOf(obj.apiVersion, obj.kind);
  if (!model) return [`no Kubernetes schema for ${obj.apiVersion} ${obj.kind}`];
  const unread = new Set<string>();
  try {
    model.prototype.validate.call(tracked(obj, '', unread));
  } catch (error) {
    return [(error as Error).message];
  }
  return [...unread].map((field) => `${field}: not a field of ${obj.apiVersion} ${obj.kind}`);
}

function tracked(value: unknown, at: string, unread: Set<string>): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (!Array.isArray(value)) for (const key of Object.keys(value)) unread.add(`${at}/${key}`);
  return new Proxy(value, {
    get(target, key, receiver) {
      const found: unknown = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || !Object.prototype.hasOwnProperty.call(target, key)) return found;
      unread.delete(`${at}/${key}`);
      return tracked(found, `${at}/${key}`, unread);
    },
  });
}

/** Kinds of add-ons, not of Kubernetes: checked only for their API group. */
const ADD_ON_GROUPS = ['cert-manager.io/v1'];

describe('deploy/k8s against the Kubernetes schemas', () => {
  it.each(
    [...base, ...dev.filter((d) => !base.some((b) => b.file === d.file))].map((d) => [
      `${d.file}: ${d.obj.kind}/${d.obj.metadata?.name}`,
      d.obj,
    ]),
  )('%s is valid for its kind', (_name, obj) => {
    if (ADD_ON_GROUPS.includes(obj.apiVersion))
      return expect(modelOf(obj.apiVersion, obj.kind)).toBeUndefined();
    expect(schemaProblems(obj)).toEqual([]);
  });

  it('the check finds a wrong type, a missing required field and an unknown field', () => {
    const d = structuredClone(deployment('executor'));
    expect(schemaProblems(d)).toEqual([]);
    container(d).readinesProbe = container(d).readinessProbe;
    expect(schemaProblems(d)).toEqual([
      '/spec/template/spec/containers/0/readinesProbe: not a field of apps/v1 Deployment',
    ]);
    delete container(d).readinesProbe;
    d.spec.replicas = 'three';
    expect(schemaProblems(d).join()).toMatch(/replicas must be integer/);
    d.spec.replicas = 3;
    delete container(d).livenessProbe.httpGet.port;
    expect(schemaProblems(d).join()).toMatch(/httpGet must have required property port/);
    expect(schemaProblems({ apiVersion: 'apps/v9', kind: 'Deployment' })).toEqual([
      'no Kubernetes schema for apps/v9 Deployment',
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The topology
// ---------------------------------------------------------------------------------------------

/** The routes a Nest module serves (`GET /readyz`), from Nest's own metadata of its controllers. */
function served(module: DynamicModule): string[] {
  return (module.controllers ?? []).flatMap((controller: Type) => {
    const base = String(Reflect.getMetadata(PATH_METADATA, controller) ?? '').replace(/^\/|\/$/g, '');
    const proto = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(proto).flatMap((name) => {
      const handler = proto[name];
      if (typeof handler !== 'function' || name === 'constructor') return [];
      const path: unknown = Reflect.getMetadata(PATH_METADATA, handler);
      const method: unknown = Reflect.getMetadata(METHOD_METADATA, handler);
      if (typeof path !== 'string' || typeof method !== 'number') return [];
      const full = [base, path.replace(/^\/|\/$/g, '')].filter(Boolean).join('/');
      return [`${RequestMethod[method]} /${full}`];
    });
  });
}

describe('deploy/k8s carries the scaled topology', () => {
  // forRuntime only wires: nothing of the runtime is used until the module starts.
  const runtime = { config: loadConfig({}), database: {}, store: {} } as unknown as ServiceRuntime;
  const SERVED: Record<string, () => string[]> = {
    gateway: () => served(GatewayModule.forRuntime(runtime, {} as never)),
    registry: () => served(RegistryModule.forRuntime(runtime)),
    planner: () => served(PlannerModule.forRuntime(runtime)),
    validator: () => served(ValidatorModule.forRuntime(runtime)),
    executor: () => served(ExecutorModule.forRuntime(runtime)),
    // agents/reference/src/health-server.ts (agent-process.int.spec.ts asks both on a real process).
    agents: () => ['GET /healthz', 'GET /readyz'],
  };

  it.each(COMPONENTS)('%s: replicas, probes on paths it serves, requests and limits, HPA and PDB', (name) => {
    const d = deployment(name);
    const c = container(d);
    expect(d.spec.replicas).toBe(TOPOLOGY[name]);
    const routes = SERVED[name]();
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const path = c[probe]?.httpGet?.path;
      expect({ probe, served: routes.includes(`GET ${path}`) }).toEqual({ probe, served: true });
    }
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    for (const kind of ['requests', 'limits'] as const)
      expect(Object.keys(c.resources[kind]).sort()).toEqual(['cpu', 'memory']);

    const labels = d.spec.template.metadata.labels;
    const hpa = ofKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name);
    expect(hpa).toMatchObject({ apiVersion: 'autoscaling/v2', spec: { minReplicas: TOPOLOGY[name] } });
    const pdb = ofKind('PodDisruptionBudget').find((p) => selects(p.spec.selector.matchLabels, labels));
    expect(pdb).toMatchObject({ apiVersion: 'policy/v1', spec: { maxUnavailable: 1 } });
  });

  it.each(COMPONENTS)(
    '%s: drains within terminationGracePeriodSeconds (preStop, then FLEX_SHUTDOWN_GRACE_MS)',
    (name) => {
      const spec = deployment(name).spec.template.spec;
      const preStop: string[] = container(deployment(name)).lifecycle?.preStop?.exec?.command ?? [];
      const preStopSeconds = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
      const drainSeconds = Number(flexConfig.FLEX_SHUTDOWN_GRACE_MS) / 1000;
      expect(drainSeconds).toBeLessThan(loadConfig({}).FLEX_SHUTDOWN_GRACE_MS / 1000 + 10);
      expect(preStopSeconds + drainSeconds + 5).toBeLessThanOrEqual(spec.terminationGracePeriodSeconds);
    },
  );

  it('the gateway, the one taking requests through a Service, leaves its endpoints before it drains', () => {
    expect(container(deployment('gateway')).lifecycle.preStop.exec.command).toEqual(['sleep', '5']);
  });

  it('NATS is a JetStream cluster of 3: routes to each server by its stable name, mutual TLS, majority PDB', () => {
    const sts = ofKind('StatefulSet').find((s) => s.metadata.name === 'nats')!;
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.podManagementPolicy).toBe('Parallel');
    const { text } = natsServerConfig(sts, objects);
    expect(text).toMatch(/^jetstream \{\n\s+store_dir: \/data\n/m);
    expect(text).toMatch(/^server_name: \$POD_NAME$/m);
    const cluster = /^cluster \{\n([\s\S]*?)^\}/m.exec(text)?.[1] ?? '';
    expect(cluster).toMatch(/listen: 0\.0\.0\.0:6222/);
    const headless = ofKind('Service').find((s) => s.metadata.name === sts.spec.serviceName)!;
    expect(headless.spec.clusterIP).toBe('None');
    expect(headless.spec.ports.map((p: Obj) => p.port)).toContain(6222);
    const routes = [...cluster.matchAll(/nats-route:\/\/([^:\s]+):6222/g)].map((m) => m[1]);
    const names = [0, 1, 2].map((i) => `nats-${i}.${headless.metadata.name}.flex.svc.cluster.local`);
    expect(routes).toEqual(names);
    expect(cluster).toMatch(/tls \{[^}]*verify: true/);
    const cert = ofKind('Certificate').find((o) => o.spec.secretName === 'nats-tls')!;
    expect(cert.spec.usages).toEqual(expect.arrayContaining(['server auth', 'client auth']));
    expect(cert.spec.dnsNames).toEqual(expect.arrayContaining(names));
    expect(
      container(sts)
        .ports.map((p: Obj) => p.containerPort)
        .sort(),
    ).toEqual([4222, 6222, 8222]);
    const pdb = ofKind('PodDisruptionBudget').find((p) =>
      selects(p.spec.selector.matchLabels, sts.spec.template.metadata.labels),
    );
    expect(pdb?.spec.minAvailable).toBe(2);
    expect(flexConfig.FLEX_NATS_STREAM_REPLICAS).toBe('3');
  });
});

// ---------------------------------------------------------------------------------------------
// compose ↔ k8s
// ---------------------------------------------------------------------------------------------

describe('docker-compose.yml and deploy/k8s name the same things', () => {
  const composeFlex = Object.keys(compose.services).filter((s) =>
    /\/dist\/[\w-]*main\.js/.test(String(compose.services[s].command)),
  );

  it('the same Flex components, with the same replicas', () => {
    expect(composeFlex.sort()).toEqual([...COMPONENTS].sort());
    for (const name of COMPONENTS)
      expect({ name, replicas: compose.services[name].deploy?.replicas }).toEqual({
        name,
        replicas: TOPOLOGY[name],
      });
  });

  it('the same settings: every variable of flex-config is set for the compose services, and no other', () => {
    const composeEnv = new Set(
      ['gateway', 'registry', 'planner', 'validator', 'executor'].flatMap((s) =>
        Object.keys(compose.services[s].environment),
      ),
    );
    const secretOrIdentity = /PASSWORD|TOKENS|SECRET_KEY|DATABASE_URL|API_KEY|FLEX_NATS_USER|FLEX_LLM_/;
    const k8sNames = Object.keys(flexConfig);
    for (const k of k8sNames) expect({ k, inCompose: composeEnv.has(k) }).toEqual({ k, inCompose: true });
    for (const k of composeEnv)
      if (!secretOrIdentity.test(k)) expect({ k, inK8s: k8sNames.includes(k) }).toEqual({ k, inK8s: true });
  });

  it('compose gives a container as long to stop as k8s does', () => {
    const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)?.[1]);
    for (const name of COMPONENTS)
      expect(seconds(compose.services[name].stop_grace_period)).toBe(
        deployment(name).spec.template.spec.terminationGracePeriodSeconds,
      );
  });
});
