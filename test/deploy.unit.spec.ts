/**
 * The distributed-mode deployment files (Dockerfile, .dockerignore, docker-compose.yml,
 * deploy/k8s/, deploy/README.md) checked against each other and against the repository.
 * Docker and Kubernetes do not run here, so these assertions are what keeps the files honest:
 * each one fails if a file drifts from the code or from the other files.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadYaml, natsServerConfig, read, ROOT, type Obj } from './deploy-manifests';

const K8S_DIR = path.join(ROOT, 'deploy', 'k8s');

/** Every Flex process and the package that holds its entry point. */
const COMPONENTS: Record<string, string> = {
  gateway: 'services/gateway',
  registry: 'services/registry',
  planner: 'services/planner',
  validator: 'services/validator',
  executor: 'services/executor',
  agents: 'agents/reference',
};
const SERVICES = ['gateway', 'registry', 'planner', 'validator', 'executor'];
const COMPONENT_NAMES = Object.keys(COMPONENTS);
/**
 * The entry point each component runs: `<pkg>/dist/main.js`, but the gateway's is apps/flex's
 * composition root, which gives it the other services' decide functions (the policy what-if).
 */
const ENTRIES: Record<string, string> = {
  ...Object.fromEntries(COMPONENT_NAMES.map((name) => [name, `${COMPONENTS[name]}/dist/main.js`])),
  gateway: 'apps/flex/dist/gateway-main.js',
};
const ROLES = new Set(['client', 'operator', 'agent', 'admin']);

/** `<pkg>/dist/<x>main.js` → does `<pkg>/src/<x>main.ts` exist? */
function entryPointSource(distPath: string): string {
  const m = /^(.+)\/dist\/(.+)\.js$/.exec(distPath);
  if (!m) throw new Error(`not a dist entry point: ${distPath}`);
  return `${m[1]}/src/${m[2]}.ts`;
}

/** Compose-style interpolation with the defaults: ${V:-d} → d, ${V:?msg} → "required", ${V} → "". */
function interpolate(value: string): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*)|(:?\?)([^}]*))?\}/g,
    (_m, _name, dash, def, q) => (dash ? def : q ? 'required' : ''),
  );
}

/** Compose `environment` as a map, list or map form. */
function envMap(env: unknown): Record<string, string> {
  if (!env) return {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((e: string) => {
        const i = e.indexOf('=');
        return i < 0 ? [e, ''] : [e.slice(0, i), e.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(env as Obj).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function commandOf(cmd: unknown): string[] {
  if (Array.isArray(cmd)) return cmd.map(String);
  if (typeof cmd === 'string') return cmd.trim().split(/\s+/);
  return [];
}

function distEntry(cmd: string[]): string | undefined {
  return cmd.find((a) => /\/dist\/[\w-]*main\.js$/.test(a));
}

function imageRepo(image: string): string {
  const at = image.split('@')[0];
  const lastSlash = at.lastIndexOf('/');
  const colon = at.lastIndexOf(':');
  return colon > lastSlash ? at.slice(0, colon) : at;
}

// ---------------------------------------------------------------------------------------------
// Dockerfile parsing
// ---------------------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  index: number;
  name?: string;
  base: string;
  instructions: Instruction[];
}

function parseDockerfile(src: string): { args: Record<string, string>; stages: Stage[] } {
  const joined = src.replace(/\\\r?\n/g, ' ');
  const lines = joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of lines) {
    const m = /^(\S+)\s*(.*)$/.exec(line)!;
    const keyword = m[1].toUpperCase();
    const rest = m[2].replace(/\s+/g, ' ').trim();
    if (keyword === 'FROM') {
      const fm = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!fm) throw new Error(`bad FROM: ${line}`);
      const base = fm[1].replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_x, v) => args[v] ?? '');
      stages.push({ index: stages.length, name: fm[2]?.toLowerCase(), base, instructions: [] });
    } else if (stages.length === 0) {
      if (keyword === 'ARG') {
        const am = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(rest);
        if (am) args[am[1]] = am[2] ?? '';
      }
    } else {
      stages[stages.length - 1].instructions.push({ keyword, args: rest });
    }
  }
  return { args, stages };
}

function stageByRef(stages: Stage[], ref: string): Stage | undefined {
  return stages.find((s) => s.name === ref.toLowerCase() || String(s.index) === ref);
}

/** The stage and every stage it is built FROM. */
function lineage(stages: Stage[], stage: Stage): Stage[] {
  const out = [stage];
  let parent = stageByRef(stages, stage.base);
  while (parent && !out.includes(parent)) {
    out.push(parent);
    parent = stageByRef(stages, parent.base);
  }
  return out;
}

function runs(stage: Stage): string[] {
  return stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
}

const FULL_NPM_CI = /\bnpm ci\b(?![^&;|]*--omit=dev)(?![^&;|]*--production)/;
const PROD_NPM_CI = /\bnpm ci\b[^&;|]*--omit=dev/;

// ---------------------------------------------------------------------------------------------
// .dockerignore matching (Docker semantics: patterns anchored at the context root, `**` any
// number of directories, last match wins, `!` re-includes; a matched directory excludes its
// contents)
// ---------------------------------------------------------------------------------------------

function dockerignoreRules(src: string): Array<{ re: RegExp; negate: boolean }> {
  return src
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      let p = (negate ? l.slice(1) : l).trim().replace(/^\/+/, '').replace(/\/+$/, '');
      if (p.startsWith('./')) p = p.slice(2);
      let re = '';
      for (let i = 0; i < p.length; i++) {
        const c = p[i];
        if (c === '*' && p[i + 1] === '*') {
          i++;
          if (p[i + 1] === '/') {
            i++;
            re += '(?:.*/)?';
          } else re += '.*';
        } else if (c === '*') re += '[^/]*';
        else if (c === '?') re += '[^/]';
        else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { re: new RegExp(`^${re}(?:/.*)?$`), negate };
    });
}

function isIgnored(rules: Array<{ re: RegExp; negate: boolean }>, file: string): boolean {
  let ignored = false;
  for (const r of rules) if (r.re.test(file)) ignored = !r.negate;
  return ignored;
}

// ---------------------------------------------------------------------------------------------
// Kubernetes helpers
// ---------------------------------------------------------------------------------------------

interface K8sDoc {
  file: string;
  obj: Obj;
}

function podSpec(workload: Obj): Obj {
  return workload.spec.template.spec;
}

function containerPort(container: Obj, port: string | number): number | undefined {
  const ports: Obj[] = container.ports ?? [];
  const p =
    typeof port === 'number'
      ? ports.find((x) => x.containerPort === port)
      : ports.find((x) => x.name === port);
  return p?.containerPort;
}

function selects(selector: Obj | undefined, labels: Obj | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

// ---------------------------------------------------------------------------------------------
// Load everything once
// ---------------------------------------------------------------------------------------------

const dockerfileSrc = read('Dockerfile');
const dockerfile = parseDockerfile(dockerfileSrc);
const finalStage = dockerfile.stages[dockerfile.stages.length - 1];
const dockerignore = dockerignoreRules(read('.dockerignore'));
const rootPkg = JSON.parse(read('package.json'));

const composeDocs = loadYaml('docker-compose.yml', { merge: true });
const compose = composeDocs[0];
const composeServices: Obj = compose?.services ?? {};

const k8sFiles = fs
  .readdirSync(K8S_DIR)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
const kustomization = loadYaml('deploy/k8s/kustomization.yaml')[0];
const k8sDocs: K8sDoc[] = k8sFiles
  .filter((f) => f !== 'kustomization.yaml')
  .flatMap((f) => loadYaml(`deploy/k8s/${f}`).map((obj) => ({ file: f, obj })));
const k8s = k8sDocs.map((d) => d.obj);
const ofKind = (kind: string): Obj[] => k8s.filter((o) => o.kind === kind);
const named = (kind: string, name: string): Obj | undefined =>
  ofKind(kind).find((o) => o.metadata?.name === name);

/** The optional dev overlay's in-cluster Postgres (deploy/k8s/dev): the base treats Postgres as external. */
const devPostgres = loadYaml('deploy/k8s/dev/postgres.yaml');
const configMaps = ofKind('ConfigMap');
const secrets = ofKind('Secret');
const deployments = ofKind('Deployment');
const statefulSets = ofKind('StatefulSet');
const k8sServices = ofKind('Service');
const flexConfig: Obj = configMaps.find((c) => c.metadata.name === 'flex-config')?.data ?? {};
const secretData = (s: Obj): Obj => ({ ...(s.data ?? {}), ...(s.stringData ?? {}) });
const PORT = Number(flexConfig.PORT);

function deployment(component: string): Obj {
  const d = deployments.find((x) => x.metadata.name === component);
  if (!d) throw new Error(`no Deployment named ${component}`);
  return d;
}
function mainContainer(workload: Obj): Obj {
  return podSpec(workload).containers[0];
}

/** Names of the variables a container gets, from envFrom ConfigMaps/Secrets and env. */
function k8sEnvNames(container: Obj): Set<string> {
  const names = new Set<string>();
  for (const src of container.envFrom ?? []) {
    const ref = src.configMapRef ?? src.secretRef;
    const pool = src.configMapRef ? configMaps : secrets;
    const target = pool.find((x) => x.metadata.name === ref?.name);
    const keys = target ? Object.keys(src.configMapRef ? (target.data ?? {}) : secretData(target)) : [];
    for (const k of keys) names.add(`${src.prefix ?? ''}${k}`);
  }
  for (const e of container.env ?? []) names.add(e.name);
  return names;
}

/** The literal or referenced value of a container variable. */
function k8sEnvValue(container: Obj, name: string): string | undefined {
  const e = (container.env ?? []).find((x: Obj) => x.name === name);
  if (e) {
    if (e.value !== undefined) return String(e.value);
    const cm = e.valueFrom?.configMapKeyRef;
    if (cm) return configMaps.find((c) => c.metadata.name === cm.name)?.data?.[cm.key];
    const sk = e.valueFrom?.secretKeyRef;
    if (sk) {
      const s = secrets.find((c) => c.metadata.name === sk.name);
      return s ? secretData(s)[sk.key] : undefined;
    }
  }
  for (const src of container.envFrom ?? []) {
    if (src.configMapRef) {
      const v = configMaps.find((c) => c.metadata.name === src.configMapRef.name)?.data?.[name];
      if (v !== undefined) return v;
    }
  }
  return undefined;
}

function allContainers(workload: Obj): Obj[] {
  const spec = podSpec(workload);
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])];
}

// =============================================================================================

describe('deployment files', () => {
  it('all exist', () => {
    for (const f of [
      'Dockerfile',
      '.dockerignore',
      'docker-compose.yml',
      'deploy/README.md',
      'deploy/k8s/kustomization.yaml',
    ]) {
      expect(fs.existsSync(path.join(ROOT, f))).toBe(true);
    }
  });

  it('every YAML file parses without errors or warnings', () => {
    expect(composeDocs).toHaveLength(1);
    for (const f of k8sFiles) expect(() => loadYaml(`deploy/k8s/${f}`)).not.toThrow();
    expect(k8sDocs.length).toBeGreaterThan(0);
  });
});

describe('Dockerfile', () => {
  it('is multi-stage on node:20-bookworm-slim', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(3);
    const external = dockerfile.stages.filter((s) => !stageByRef(dockerfile.stages, s.base));
    expect(external.length).toBeGreaterThan(0);
    for (const s of external) expect(s.base).toBe('node:20-bookworm-slim');
    expect(stageByRef(dockerfile.stages, finalStage.base)).toBeUndefined();
  });

  it('builds with `npm ci` (all dependencies) and `npm run build`', () => {
    const buildStages = dockerfile.stages.filter((s) => runs(s).some((r) => /\bnpm run build\b/.test(r)));
    expect(buildStages.length).toBeGreaterThan(0);
    for (const b of buildStages) {
      const installed = lineage(dockerfile.stages, b).some((s) => runs(s).some((r) => FULL_NPM_CI.test(r)));
      expect(installed).toBe(true);
    }
    expect(typeof rootPkg.scripts?.build).toBe('string');
    expect(fs.existsSync(path.join(ROOT, 'package-lock.json'))).toBe(true);
  });

  it('copies the manifests of every npm workspace before `npm ci`, and collects every workspace after the build', () => {
    const allRuns = dockerfile.stages.flatMap(runs).join('\n');
    for (const ws of rootPkg.workspaces as string[]) {
      expect(allRuns).toContain(`${ws}/package.json`);
      const dir = ws.replace(/\/\*$/, '');
      expect(allRuns).toMatch(new RegExp(`for pkg in [^;]*\\b${dir}/\\*`));
    }
  });

  it('runtime stage: production dependencies only, NODE_ENV=production, non-root, no build tools', () => {
    const fin = finalStage.instructions;
    const env = fin
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bNODE_ENV=production\b/);
    const users = fin.filter((i) => i.keyword === 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1].args.split(':')[0];
    expect(['root', '0', '']).not.toContain(user);
    expect(runs(finalStage).some((r) => /\bnpm (ci|install|run build)\b/.test(r))).toBe(false);

    const copies = fin.filter((i) => i.keyword === 'COPY' && /--from=/.test(i.args));
    const fromProd = copies.some((c) => {
      const src = stageByRef(dockerfile.stages, /--from=(\S+)/.exec(c.args)![1]);
      return !!src && lineage(dockerfile.stages, src).some((s) => runs(s).some((r) => PROD_NPM_CI.test(r)));
    });
    expect(fromProd).toBe(true);
    // No dev-dependency tree may be copied in from a stage that installed everything.
    for (const c of copies) {
      const src = stageByRef(dockerfile.stages, /--from=(\S+)/.exec(c.args)![1])!;
      const hasDevDeps = lineage(dockerfile.stages, src).some((s) =>
        runs(s).some((r) => FULL_NPM_CI.test(r)),
      );
      if (!hasDevDeps) continue;
      const sources = c.args
        .split(' ')
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1);
      for (const s of sources) {
        expect(s).not.toMatch(/node_modules/);
        expect(['.', './', '/app', '/app/', '/']).not.toContain(s);
      }
    }
  });

  it('has a HEALTHCHECK on /healthz and exposes the service port', () => {
    const hc = finalStage.instructions.filter((i) => i.keyword === 'HEALTHCHECK');
    expect(hc).toHaveLength(1);
    expect(hc[0].args).toContain('/healthz');
    const expose = finalStage.instructions.filter((i) => i.keyword === 'EXPOSE').map((i) => i.args);
    expect(expose.join(' ').split(/\s+/)).toContain(String(PORT));
    const env = finalStage.instructions
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(new RegExp(`\\bPORT=${PORT}\\b`));
  });

  it('default CMD starts a Flex process whose source exists', () => {
    const cmds = finalStage.instructions.filter((i) => i.keyword === 'CMD');
    expect(cmds).toHaveLength(1);
    const cmd = JSON.parse(cmds[0].args) as string[];
    expect(cmd[0]).toBe('node');
    const entry = distEntry(cmd)!;
    expect(Object.values(ENTRIES)).toContain(entry);
    expect(fs.existsSync(path.join(ROOT, entryPointSource(entry)))).toBe(true);
  });
});

describe('.dockerignore', () => {
  it('keeps installed and built output, git, local state and secrets out of the context', () => {
    for (const f of [
      'node_modules/nx/package.json',
      'libs/contracts/node_modules/x/index.js',
      'services/gateway/dist/main.js',
      'agents/reference/dist/main.js',
      '.git/HEAD',
      '.nx/cache/x',
      '.flex/events.db',
      '.env',
      '.env.local',
    ]) {
      expect({ f, ignored: isIgnored(dockerignore, f) }).toEqual({ f, ignored: true });
    }
  });

  it('keeps everything the build needs, including whatever the Dockerfile COPYs from the context', () => {
    const needed = [
      'package.json',
      'package-lock.json',
      'nx.json',
      '.swcrc',
      'tsconfig.base.json',
      ...Object.values(COMPONENTS).flatMap((p) => [`${p}/package.json`, `${p}/src/main.ts`]),
      'libs/contracts/package.json',
      'libs/contracts/src/index.ts',
    ];
    for (const f of needed) expect({ f, ignored: isIgnored(dockerignore, f) }).toEqual({ f, ignored: false });
    for (const s of dockerfile.stages) {
      for (const c of s.instructions.filter(
        (i) => (i.keyword === 'COPY' || i.keyword === 'ADD') && !/--from=/.test(i.args),
      )) {
        const sources = c.args
          .split(' ')
          .filter((a) => !a.startsWith('--'))
          .slice(0, -1);
        for (const src of sources)
          if (src !== '.' && src !== './') expect(isIgnored(dockerignore, src)).toBe(false);
      }
    }
  });
});

describe('docker-compose.yml', () => {
  const flexServices = COMPONENT_NAMES;

  it('has nats, postgres, the five services and the agents', () => {
    for (const s of ['nats', 'postgres', ...flexServices]) expect(Object.keys(composeServices)).toContain(s);
  });

  it('nats runs JetStream on a volume with its monitoring port healthchecked', () => {
    const nats = composeServices.nats;
    const cmd = commandOf(nats.command);
    expect(cmd).toContain('-js');
    const sd = cmd[cmd.indexOf('-sd') + 1] ?? cmd[cmd.indexOf('--store_dir') + 1];
    expect(cmd.includes('-sd') || cmd.includes('--store_dir')).toBe(true);
    expect(cmd[cmd.indexOf('-m') + 1]).toBe('8222');
    const mounts: string[] = (nats.volumes ?? []).map((v: unknown) =>
      typeof v === 'string' ? v.split(':')[1] : (v as Obj).target,
    );
    expect(mounts).toContain(sd);
    const volumeNames: string[] = (nats.volumes ?? []).map((v: unknown) =>
      typeof v === 'string' ? v.split(':')[0] : (v as Obj).source,
    );
    for (const n of volumeNames)
      if (!n.startsWith('.') && !n.startsWith('/')) expect(Object.keys(compose.volumes ?? {})).toContain(n);
    expect(commandOf(nats.healthcheck?.test).join(' ')).toMatch(/:8222\/healthz/);
  });

  it('postgres 16 keeps its data on a named volume and is healthchecked with pg_isready', () => {
    const pg = composeServices.postgres;
    expect(pg.image).toMatch(/^postgres:16(\b|[-.])/);
    const vols: string[] = pg.volumes ?? [];
    const data = vols.find((v) => typeof v === 'string' && v.endsWith(':/var/lib/postgresql/data'));
    expect(data).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data!.split(':')[0]);
    expect(commandOf(pg.healthcheck?.test).join(' ')).toContain('pg_isready');
  });

  it.each(COMPONENT_NAMES)('%s runs a dist/main.js whose src/main.ts exists', (name) => {
    const entry = distEntry(commandOf(composeServices[name]?.command));
    expect(entry).toBe(ENTRIES[name]);
    const src = entryPointSource(entry!);
    expect({ src, exists: fs.existsSync(path.join(ROOT, src)) }).toEqual({ src, exists: true });
  });

  it('every Flex process uses the one image built from ./Dockerfile', () => {
    const images = new Set(flexServices.map((s) => composeServices[s].image));
    expect(images.size).toBe(1);
    for (const s of flexServices) {
      const b = composeServices[s].build;
      const context = typeof b === 'string' ? b : b?.context;
      expect(context).toBe('.');
      if (typeof b === 'object' && b.dockerfile) expect(b.dockerfile).toBe('Dockerfile');
      expect(commandOf(composeServices[s].command)[0]).toBe('node');
    }
  });

  it.each(SERVICES)(
    '%s gets FLEX_NATS_URL and FLEX_DATABASE_URL pointing at the compose nats and postgres',
    (name) => {
      const env = envMap(composeServices[name].environment);
      expect(env.FLEX_NATS_URL).toBeDefined();
      expect(env.FLEX_DATABASE_URL).toBeDefined();
      const nats = new URL(interpolate(env.FLEX_NATS_URL));
      expect(nats.protocol).toBe('nats:');
      expect(composeServices[nats.hostname]).toBe(composeServices.nats);
      expect(nats.port).toBe('4222');
      const db = new URL(interpolate(env.FLEX_DATABASE_URL));
      expect(db.protocol).toMatch(/^postgres(ql)?:$/);
      expect(composeServices[db.hostname]).toBe(composeServices.postgres);
      expect(db.port || '5432').toBe('5432');
      const pgEnv = envMap(composeServices.postgres.environment);
      expect(decodeURIComponent(db.username)).toBe(interpolate(pgEnv.POSTGRES_USER));
      expect(decodeURIComponent(db.password)).toBe(interpolate(pgEnv.POSTGRES_PASSWORD));
      expect(db.pathname).toBe(`/${interpolate(pgEnv.POSTGRES_DB)}`);
    },
  );

  it('the agents get NATS but no database credentials; only the gateway gets API tokens', () => {
    const agents = envMap(composeServices.agents.environment);
    expect(agents.FLEX_NATS_URL).toBe(envMap(composeServices.gateway.environment).FLEX_NATS_URL);
    expect(agents.FLEX_DATABASE_URL).toBeUndefined();
    expect(envMap(composeServices.gateway.environment).FLEX_API_TOKENS).toBeDefined();
    for (const s of flexServices.filter((x) => x !== 'gateway')) {
      expect(envMap(composeServices[s].environment).FLEX_API_TOKENS).toBeUndefined();
    }
  });

  it('every Flex process waits for healthy dependencies, is healthchecked on /healthz and restarts', () => {
    for (const s of flexServices) {
      const svc = composeServices[s];
      const deps = svc.depends_on as Obj;
      expect(deps && !Array.isArray(deps)).toBe(true);
      expect(Object.keys(deps)).toContain('nats');
      if (SERVICES.includes(s)) expect(Object.keys(deps)).toContain('postgres');
      for (const [dep, cond] of Object.entries(deps)) {
        expect(cond.condition).toBe('service_healthy');
        expect(composeServices[dep]?.healthcheck?.test).toBeDefined();
      }
      expect(commandOf(svc.healthcheck?.test).join(' ')).toContain('/healthz');
      expect(['always', 'unless-stopped', 'on-failure']).toContain(String(svc.restart).split(':')[0]);
      expect(envMap(svc.environment).PORT).toBe(String(PORT));
    }
  });

  it('publishes each gateway replica on its own host port from 3000, and nothing else of Flex', () => {
    const ports: string[] = composeServices.gateway.ports.map((p: unknown) => String(interpolate(String(p))));
    const range = ports.map((p) => /^(?:[\d.]+:)?(\d+)-(\d+):(\d+)$/.exec(p)).find(Boolean);
    expect(range).toBeDefined();
    const [, first, last, target] = range!.map(Number);
    expect(first).toBe(3000);
    expect(last - first + 1).toBe(composeServices.gateway.deploy.replicas);
    expect(target).toBe(PORT);
    for (const s of flexServices.filter((x) => x !== 'gateway'))
      expect(composeServices[s].ports).toBeUndefined();
  });

  it('runs every Flex process replicated, with no fixed container name', () => {
    for (const s of flexServices) expect(composeServices[s].deploy?.replicas).toBeGreaterThanOrEqual(2);
    for (const s of flexServices) expect(composeServices[s].container_name).toBeUndefined();
  });
});

describe('deploy/k8s', () => {
  it('kustomization.yaml lists exactly the files in deploy/k8s', () => {
    const listed = [...(kustomization.resources as string[])].sort();
    expect(listed).toEqual(k8sFiles.filter((f) => f !== 'kustomization.yaml'));
  });

  it('everything lives in one namespace, declared once', () => {
    const ns = ofKind('Namespace');
    expect(ns).toHaveLength(1);
    expect(kustomization.namespace).toBe(ns[0].metadata.name);
    for (const o of k8s.filter((x) => x.kind !== 'Namespace')) {
      expect({ o: `${o.kind}/${o.metadata.name}`, ns: o.metadata.namespace }).toEqual({
        o: `${o.kind}/${o.metadata.name}`,
        ns: ns[0].metadata.name,
      });
    }
  });

  it('every object has apiVersion, kind and a unique name', () => {
    const ids = k8s.map((o) => `${o.kind}/${o.metadata?.name}`);
    for (const o of k8s) {
      expect(typeof o.apiVersion).toBe('string');
      expect(typeof o.metadata?.name).toBe('string');
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has a Deployment for each of the five services and the agents', () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...COMPONENT_NAMES].sort());
  });

  it.each(COMPONENT_NAMES)(
    '%s runs a dist/main.js whose src/main.ts exists, the same as in compose',
    (name) => {
      const c = mainContainer(deployment(name));
      const entry = distEntry([...commandOf(c.command), ...commandOf(c.args)]);
      expect(entry).toBe(ENTRIES[name]);
      expect(entry).toBe(distEntry(commandOf(composeServices[name]?.command)));
      const src = entryPointSource(entry!);
      expect({ src, exists: fs.existsSync(path.join(ROOT, src)) }).toEqual({ src, exists: true });
    },
  );

  it('all Flex containers use one image, named in kustomization images and in compose', () => {
    const images = new Set(deployments.flatMap((d) => allContainers(d).map((c) => c.image)));
    expect(images.size).toBe(1);
    const [image] = [...images];
    const repo = imageRepo(image);
    expect((kustomization.images ?? []).map((i: Obj) => i.name)).toContain(repo);
    const composeImage = interpolate(composeServices.gateway.image);
    expect(imageRepo(composeImage)).toBe(repo);
  });

  it.each(COMPONENT_NAMES)(
    '%s: probes on /readyz and /healthz at the container port, resources, replicas >= 2, non-root',
    (name) => {
      const d = deployment(name);
      const spec = podSpec(d);
      const c = mainContainer(d);
      expect(spec.containers).toHaveLength(1);
      expect(containerPort(c, 'http') ?? c.ports?.[0]?.containerPort).toBe(PORT);
      // Alive and ready are apart: a pod takes traffic once /readyz says so, restarts when /healthz fails.
      for (const [probe, path] of [
        ['readinessProbe', '/readyz'],
        ['livenessProbe', '/healthz'],
      ]) {
        const p = c[probe]?.httpGet;
        expect({ probe, path: p?.path }).toEqual({ probe, path });
        expect(containerPort(c, p.port)).toBe(PORT);
      }
      if (c.startupProbe) expect(containerPort(c, c.startupProbe.httpGet.port)).toBe(PORT);
      for (const kind of ['requests', 'limits']) {
        expect(c.resources?.[kind]?.cpu).toBeDefined();
        expect(c.resources?.[kind]?.memory).toBeDefined();
      }
      expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
      expect(selects(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
      expect(spec.securityContext?.runAsNonRoot ?? c.securityContext?.runAsNonRoot).toBe(true);
      expect(spec.securityContext?.runAsUser ?? c.securityContext?.runAsUser).toBeGreaterThan(0);
      expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
      // Service links would inject e.g. NATS_PORT / POSTGRES_PORT into the environment.
      expect(spec.enableServiceLinks).toBe(false);
      const ann = d.spec.template.metadata.annotations ?? {};
      if (ann['prometheus.io/port']) expect(Number(ann['prometheus.io/port'])).toBe(PORT);
    },
  );

  it('every ConfigMap/Secret a workload references exists and has the referenced key', () => {
    const workloads = [...deployments, ...statefulSets];
    let refs = 0;
    for (const w of workloads) {
      for (const c of allContainers(w)) {
        for (const src of c.envFrom ?? []) {
          refs++;
          if (src.configMapRef)
            expect(configMaps.map((x) => x.metadata.name)).toContain(src.configMapRef.name);
          if (src.secretRef) expect(secrets.map((x) => x.metadata.name)).toContain(src.secretRef.name);
        }
        for (const e of c.env ?? []) {
          const cm = e.valueFrom?.configMapKeyRef;
          const sk = e.valueFrom?.secretKeyRef;
          if (cm) {
            refs++;
            const target = configMaps.find((x) => x.metadata.name === cm.name);
            expect({ ref: `${cm.name}/${cm.key}`, found: !!target && cm.key in (target.data ?? {}) }).toEqual(
              { ref: `${cm.name}/${cm.key}`, found: true },
            );
          }
          if (sk) {
            refs++;
            const target = secrets.find((x) => x.metadata.name === sk.name);
            expect({ ref: `${sk.name}/${sk.key}`, found: !!target && sk.key in secretData(target) }).toEqual({
              ref: `${sk.name}/${sk.key}`,
              found: true,
            });
          }
        }
      }
    }
    expect(refs).toBeGreaterThan(0);
  });

  it.each(SERVICES)('%s gets FLEX_NATS_URL and FLEX_DATABASE_URL', (name) => {
    const names = k8sEnvNames(mainContainer(deployment(name)));
    expect(names.has('FLEX_NATS_URL')).toBe(true);
    expect(names.has('FLEX_DATABASE_URL')).toBe(true);
    expect(names.has('PORT')).toBe(true);
    expect(names.has('FLEX_API_TOKENS')).toBe(name === 'gateway');
  });

  it('the agents get NATS but neither database credentials nor API tokens', () => {
    const names = k8sEnvNames(mainContainer(deployment('agents')));
    expect(names.has('FLEX_NATS_URL')).toBe(true);
    expect(names.has('FLEX_DATABASE_URL')).toBe(false);
    expect(names.has('FLEX_API_TOKENS')).toBe(false);
    expect(names.has('POSTGRES_PASSWORD')).toBe(false);
  });

  it('FLEX_NATS_URL reaches the NATS StatefulSet, which runs JetStream on a persistent volume', () => {
    const url = new URL(k8sEnvValue(mainContainer(deployment('executor')), 'FLEX_NATS_URL')!);
    const svc = named('Service', url.hostname)!;
    expect(svc).toBeDefined();
    const port = svc.spec.ports.find((p: Obj) => p.port === Number(url.port || 4222));
    expect(port).toBeDefined();
    const sts = statefulSets.find((s) => selects(svc.spec.selector, s.spec.template.metadata.labels))!;
    expect(sts).toBeDefined();
    const c = mainContainer(sts);
    expect(containerPort(c, port.targetPort ?? port.port)).toBe(4222);
    const storeDir = /jetstream\s*\{[^}]*\bstore_dir:\s*"?([^"\s]+)/.exec(
      natsServerConfig(sts, k8s).text,
    )?.[1];
    expect(storeDir).toBeDefined();
    const claims = (sts.spec.volumeClaimTemplates ?? []).map((v: Obj) => v.metadata.name);
    const mount = (c.volumeMounts ?? []).find((m: Obj) => m.mountPath === storeDir);
    expect(mount).toBeDefined();
    expect(claims).toContain(mount.name);
    expect(c.readinessProbe?.httpGet?.path).toMatch(/^\/healthz/);
    expect(c.livenessProbe?.httpGet?.path).toMatch(/^\/healthz/);
  });

  it('Postgres is external to the base; the template FLEX_DATABASE_URL reaches the dev overlay’s Postgres 16', () => {
    expect(statefulSets.map((s) => s.metadata.name)).not.toContain('postgres');
    expect(loadYaml('deploy/k8s/dev/kustomization.yaml')[0].resources).toEqual(['..', 'postgres.yaml']);
    const url = new URL(k8sEnvValue(mainContainer(deployment('gateway')), 'FLEX_DATABASE_URL')!);
    expect(url.protocol).toMatch(/^postgres(ql)?:$/);
    const svc = devPostgres.find((o) => o.kind === 'Service' && o.metadata.name === url.hostname)!;
    expect(svc).toBeDefined();
    const port = svc.spec.ports.find((p: Obj) => p.port === Number(url.port || 5432));
    expect(port).toBeDefined();
    const sts = devPostgres.find(
      (s) => s.kind === 'StatefulSet' && selects(svc.spec.selector, s.spec.template.metadata.labels),
    )!;
    const c = mainContainer(sts);
    expect(c.image).toMatch(/^postgres:16(\b|[-.])/);
    expect(containerPort(c, port.targetPort ?? port.port)).toBe(5432);
    expect(decodeURIComponent(url.username)).toBe(k8sEnvValue(c, 'POSTGRES_USER'));
    expect(decodeURIComponent(url.password)).toBe(k8sEnvValue(c, 'POSTGRES_PASSWORD'));
    expect(url.pathname).toBe(`/${k8sEnvValue(c, 'POSTGRES_DB')}`);
    const pgdata = k8sEnvValue(c, 'PGDATA') ?? '/var/lib/postgresql/data';
    const mount = (c.volumeMounts ?? []).find(
      (m: Obj) => pgdata === m.mountPath || pgdata.startsWith(`${m.mountPath}/`),
    );
    expect(mount).toBeDefined();
    expect((sts.spec.volumeClaimTemplates ?? []).map((v: Obj) => v.metadata.name)).toContain(mount.name);
  });

  it('dev/postgres.yaml is marked optional and says a managed Postgres is preferable', () => {
    expect(read('deploy/k8s/dev/postgres.yaml')).toMatch(/OPTIONAL, FOR TRYING FLEX OUT ONLY/);
    expect(read('deploy/k8s/dev/postgres.yaml')).toMatch(/managed postgres/i);
  });

  it('StatefulSets name an existing headless Service', () => {
    const devStatefulSets = devPostgres.filter((o) => o.kind === 'StatefulSet');
    expect([...statefulSets, ...devStatefulSets].map((s) => s.metadata.name).sort()).toEqual([
      'nats',
      'postgres',
    ]);
    for (const s of [...statefulSets, ...devStatefulSets]) {
      const svc = [...k8sServices, ...devPostgres].find(
        (o) => o.kind === 'Service' && o.metadata.name === s.spec.serviceName,
      );
      expect(svc?.spec.clusterIP).toBe('None');
      expect(selects(svc!.spec.selector, s.spec.template.metadata.labels)).toBe(true);
    }
  });

  it('the Secret is a template: every value is a marked placeholder or empty', () => {
    expect(secrets).toHaveLength(1);
    const data = secrets[0].stringData ?? {};
    expect(secrets[0].data).toBeUndefined();
    // Each secret part on its own: a real token or password next to a placeholder must fail.
    const secretParts = (k: string, v: string): string[] => {
      if (k === 'FLEX_API_TOKENS') return v.split(',').map((pair) => pair.split(':')[0]);
      if (/^[a-z]+:\/\//.test(v)) return [decodeURIComponent(new URL(v).password)];
      return [v];
    };
    for (const [k, v] of Object.entries(data)) {
      if (v === '') continue;
      for (const part of secretParts(k, String(v))) {
        expect({ k, part, placeholder: /^CHANGE-ME/.test(part) }).toEqual({ k, part, placeholder: true });
      }
    }
    expect(read('deploy/k8s/secret.yaml')).toMatch(/TEMPLATE/);
    for (const key of ['FLEX_API_TOKENS', 'FLEX_DATABASE_URL', 'FLEX_LLM_API_KEY'])
      expect(Object.keys(data)).toContain(key);
    for (const pair of String(data.FLEX_API_TOKENS).split(',')) {
      const [token, role, extra] = pair.split(':');
      expect(token.length).toBeGreaterThan(0);
      expect(ROLES.has(role)).toBe(true);
      expect(extra).toBeUndefined();
    }
  });

  it('the ConfigMap holds no secrets', () => {
    for (const key of Object.keys(flexConfig))
      expect(key).not.toMatch(/TOKEN|PASSWORD|API_KEY|DATABASE_URL|SECRET/);
    expect(PORT).toBeGreaterThan(0);
  });

  it.each(COMPONENT_NAMES)('%s has a Service whose target port is the container port', (name) => {
    const d = deployment(name);
    const c = mainContainer(d);
    const svc = k8sServices.find(
      (s) => selects(s.spec.selector, d.spec.template.metadata.labels) && s.spec.clusterIP !== 'None',
    );
    expect(svc).toBeDefined();
    for (const p of svc!.spec.ports) expect(containerPort(c, p.targetPort ?? p.port)).toBe(PORT);
  });

  it('the gateway Ingress reaches the gateway container port and is SSE-friendly', () => {
    const ingresses = ofKind('Ingress');
    expect(ingresses).toHaveLength(1);
    const ing = ingresses[0];
    const gw = deployment('gateway');
    const c = mainContainer(gw);
    const backends = ing.spec.rules.flatMap((r: Obj) =>
      r.http.paths.map((p: Obj) => ({ path: p.path, ...p.backend.service })),
    );
    expect(backends.length).toBeGreaterThan(0);
    for (const b of backends) {
      const svc = named('Service', b.name)!;
      expect(svc).toBeDefined();
      expect(selects(svc.spec.selector, gw.spec.template.metadata.labels)).toBe(true);
      const sp = svc.spec.ports.find((p: Obj) =>
        b.port.name ? p.name === b.port.name : p.port === b.port.number,
      );
      expect(sp).toBeDefined();
      expect(containerPort(c, sp.targetPort ?? sp.port)).toBe(PORT);
    }
    expect(backends.map((b: Obj) => b.path)).toContain('/api/v1/flex');
    const ann = ing.metadata.annotations ?? {};
    expect(ann['nginx.ingress.kubernetes.io/proxy-buffering']).toBe('off');
    expect(Number(ann['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(3600);
    expect(Number(ann['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(3600);
  });

  it.each(COMPONENT_NAMES)('%s has a PodDisruptionBudget that still allows an eviction', (name) => {
    const d = deployment(name);
    const pdb = ofKind('PodDisruptionBudget').find((p) =>
      selects(p.spec.selector.matchLabels, d.spec.template.metadata.labels),
    );
    expect(pdb).toBeDefined();
    if (pdb!.spec.minAvailable !== undefined)
      expect(Number(pdb!.spec.minAvailable)).toBeLessThan(d.spec.replicas);
    else expect(Number(pdb!.spec.maxUnavailable)).toBeGreaterThanOrEqual(1);
  });

  it('no PodDisruptionBudget pins a single-replica StatefulSet', () => {
    for (const s of statefulSets.filter((x) => (x.spec.replicas ?? 1) < 2)) {
      const pdb = ofKind('PodDisruptionBudget').find((p) =>
        selects(p.spec.selector.matchLabels, s.spec.template.metadata.labels),
      );
      expect(pdb).toBeUndefined();
    }
  });

  it.each(COMPONENT_NAMES)('%s has a HorizontalPodAutoscaler on its Deployment', (name) => {
    const hpa = ofKind('HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === name);
    expect(hpa).toBeDefined();
    expect(hpa!.apiVersion).toBe('autoscaling/v2');
    expect(hpa!.spec.scaleTargetRef.kind).toBe('Deployment');
    const d = deployment(name);
    expect(hpa!.spec.minReplicas).toBe(d.spec.replicas);
    expect(hpa!.spec.maxReplicas).toBeGreaterThan(hpa!.spec.minReplicas);
    for (const m of hpa!.spec.metrics) {
      if (m.type === 'Resource') expect(mainContainer(d).resources.requests[m.resource.name]).toBeDefined();
    }
  });
});

describe('consistency and documentation', () => {
  it('compose and k8s run the same processes', () => {
    for (const name of COMPONENT_NAMES) {
      const c = mainContainer(deployment(name));
      expect([...commandOf(c.command), ...commandOf(c.args)]).toEqual(
        commandOf(composeServices[name].command),
      );
    }
  });

  it('deploy/README.md documents every variable Flex is given and every k8s file', () => {
    const readme = read('deploy/README.md');
    const vars = new Set<string>();
    for (const s of COMPONENT_NAMES)
      for (const k of Object.keys(envMap(composeServices[s].environment))) vars.add(k);
    for (const k of Object.keys(flexConfig)) vars.add(k);
    for (const s of secrets) for (const k of Object.keys(secretData(s))) vars.add(k);
    for (const d of deployments) for (const k of k8sEnvNames(mainContainer(d))) vars.add(k);
    for (const m of read('docker-compose.yml').matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)) vars.add(m[1]);
    expect(vars.size).toBeGreaterThan(5);
    for (const v of vars)
      expect({ v, documented: readme.includes(`\`${v}\``) }).toEqual({ v, documented: true });
    for (const f of k8sFiles.filter((x) => x !== 'kustomization.yaml')) {
      expect({ f, mentioned: readme.includes(`\`${f}\``) }).toEqual({ f, mentioned: true });
    }
    expect(readme).toMatch(/docker compose up/);
    expect(readme).toMatch(/kubectl apply -k deploy\/k8s/);
  });
});
