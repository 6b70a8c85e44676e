import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  natsTestUrl,
  parsePrometheusText,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type ManagedProcess,
  type PromScrape,
  type TestDatabase,
} from '@flex/testing';
import { readInvocations, startService, type Invocation } from '../distributed-harness';

/** The five Flex services; each instance of one is its own process with its own HTTP port. */
export const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];
/** A replica of the reference agents (test/fixtures/slow-agents.js): no HTTP port, a log of its calls. */
export type InstanceKind = ServiceName | 'agents';

/** How many processes of each kind a cluster runs. */
export type Topology = Record<InstanceKind, number>;

export interface ClusterOptions {
  /** Names the cluster's database and stream prefix (one of each per cluster). */
  label: string;
  topology: Topology;
  /** `token:role` pairs for FLEX_API_TOKENS; the first `client` and `operator` ones are the defaults. */
  tokens?: string;
  /** Extra env for every service instance (e.g. FLEX_AGENT_TIMEOUT_MS). */
  env?: Record<string, string>;
  /** Extra env for one instance, by name (`executor-2`), applied on every (re)start. */
  instanceEnv?: Record<string, Record<string, string>>;
  /** Each agent call takes this long (default 0). */
  agentDelayMs?: number;
  /** The NATS to use (default: the test NATS of globalSetup). */
  natsUrl?: string;
  /** Per process start, until /readyz (or the agents' ready line) answers (default 90 s). */
  readyTimeoutMs?: number;
}

/** One process of the cluster, named `<kind>-<n>` (`executor-2`, `agents-1`), n from 1. */
export interface Instance {
  name: string;
  kind: InstanceKind;
  /** The HTTP base URL (services only; kept across restarts). */
  url?: string;
  port?: number;
  proc: ManagedProcess;
  /** The agents' call log (agents only; kept across restarts). */
  logFile?: string;
  /** The process has not exited. */
  readonly running: boolean;
}

export const DEFAULT_TOKENS =
  'cluster-client-token:client,cluster-operator-token:operator,cluster-admin-token:admin';

/**
 * A multi-instance Flex on real NATS JetStream and Postgres (issue 16): N processes of every
 * service and M replicas of the reference agents, one database and one stream prefix per cluster.
 * Instances are started, killed (`kill -9` or SIGTERM) and restarted by name; every wait is bounded.
 */
export class Cluster {
  private readonly all = new Map<string, Instance>();

  private constructor(
    readonly options: ClusterOptions,
    readonly prefix: string,
    private readonly db: TestDatabase,
    readonly dir: string,
    private readonly natsUrl: string,
  ) {}

  /** Start every instance (the services, then the agents) and wait until all are ready. */
  static async start(options: ClusterOptions): Promise<Cluster> {
    const db = await createTestDatabase(options.label);
    const dir = mkdtempSync(join(tmpdir(), `flex-cluster-${options.label}-`));
    const cluster = new Cluster(
      options,
      testPrefix(options.label),
      db,
      dir,
      options.natsUrl ?? natsTestUrl(),
    );
    try {
      const names = (kind: InstanceKind) =>
        Array.from({ length: options.topology[kind] }, (_, i) => `${kind}-${i + 1}`);
      // Services all at once (each migrates forward idempotently), then the agents, who register.
      await Promise.all(SERVICES.flatMap(names).map((name) => cluster.launch(name)));
      await Promise.all(names('agents').map((name) => cluster.launch(name)));
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The database URL every instance shares. */
  get databaseUrl(): string {
    return this.db.url;
  }

  /** Every instance (of one kind, when given): services in SERVICES order, then the agents; by number. */
  instances(kind?: InstanceKind): Instance[] {
    return [...this.all.values()]
      .filter((i) => kind === undefined || i.kind === kind)
      .sort((a, b) => order(a.name) - order(b.name));
  }

  instance(name: string): Instance {
    const found = this.all.get(name);
    if (!found) throw new Error(`no instance ${name} (have ${[...this.all.keys()].join(', ')})`);
    return found;
  }

  /** A client of one gateway (by name, or the n-th from 0), with the client token unless told. */
  client(gateway: string | number, token = this.token('client')): FlexClient {
    const name = typeof gateway === 'number' ? this.instances('gateway')[gateway].name : gateway;
    const url = this.instance(name).url;
    if (!url) throw new Error(`${name} is not a service instance`);
    return new FlexClient(url, token);
  }

  /** The first token of `role` in the cluster's FLEX_API_TOKENS. */
  token(role: 'client' | 'operator' | 'admin'): string {
    const pair = this.tokens()
      .split(',')
      .map((p) => p.split(':'))
      .find(([, r]) => r === role);
    if (!pair) throw new Error(`no ${role} token in the cluster's FLEX_API_TOKENS`);
    return pair[0];
  }

  /** Send `signal` (default SIGKILL) and wait until the process is gone; the exit code (null when killed). */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
    const instance = this.instance(name);
    const { child } = instance.proc;
    await instance.proc.kill(signal);
    return child.exitCode;
  }

  /** Start a stopped (or killed) instance again under its name and port; resolves once it is ready. */
  async restart(name: string): Promise<Instance> {
    const instance = this.instance(name);
    if (instance.running) await this.kill(name, 'SIGKILL');
    return this.launch(name);
  }

  /** The instance's `/metrics`, parsed. */
  async scrape(name: string): Promise<PromScrape> {
    const { url } = this.instance(name);
    if (!url) throw new Error(`${name} has no /metrics (not a service instance)`);
    const res = await fetch(`${url}/metrics`);
    if (!res.ok) throw new Error(`${name} /metrics answered ${res.status}`);
    return parsePrometheusText(await res.text());
  }

  /** Every running service instance's `/metrics` (of one kind, when given), by name. */
  async scrapeAll(kind?: ServiceName): Promise<Map<string, PromScrape>> {
    const targets = this.instances(kind).filter((i) => i.running && i.url);
    const scrapes = await Promise.all(targets.map(async (i) => [i.name, await this.scrape(i.name)] as const));
    return new Map(scrapes);
  }

  /** Every agent call an agents replica logged (all replicas when no name), across its restarts. */
  invocations(name?: string): Invocation[] {
    return this.instances('agents')
      .filter((i) => name === undefined || i.name === name)
      .flatMap((i) => readInvocations(i.logFile!));
  }

  /** The tail of every process's output, for failure messages. */
  logs(tail = 3000): string {
    return this.instances()
      .map((i) => `--- ${i.name} (${i.running ? 'running' : 'stopped'}) ---\n${i.proc.output().slice(-tail)}`)
      .join('\n');
  }

  /** Kill every process (SIGKILL, bounded by the process exiting), drop the database and the temp dir. */
  async stop(): Promise<void> {
    await Promise.all(this.instances().map((i) => i.proc.kill('SIGKILL')));
    await this.db.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private tokens(): string {
    return this.options.tokens ?? DEFAULT_TOKENS;
  }

  private async launch(name: string): Promise<Instance> {
    const kind = name.replace(/-\d+$/, '') as InstanceKind;
    const known = this.all.get(name);
    const timeout = this.options.readyTimeoutMs ?? 90_000;
    const instance: Instance =
      kind === 'agents'
        ? this.spawnAgents(name, known?.logFile ?? join(this.dir, `${name}.jsonl`))
        : this.spawnService(name, kind, known?.port ?? (await freePort()));
    this.all.set(name, instance);
    const describe = () => this.logs();
    if (instance.url) await waitForHttp(`${instance.url}/readyz`, timeout, describe);
    else await waitFor(async () => instance.proc.output().includes('slow agents ready'), timeout, describe);
    return instance;
  }

  private spawnService(name: string, kind: ServiceName, port: number): Instance {
    const env = {
      FLEX_DATABASE_URL: this.db.url,
      FLEX_NATS_URL: this.natsUrl,
      FLEX_NATS_PREFIX: this.prefix,
      FLEX_LOG_LEVEL: 'warn',
      FLEX_API_TOKENS: this.tokens(),
      OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${name}`,
      ...this.options.env,
      ...this.options.instanceEnv?.[name],
      PORT: String(port),
    };
    return instanceOf(name, kind, startService(name, env), { port, url: `http://127.0.0.1:${port}` });
  }

  private spawnAgents(name: string, logFile: string): Instance {
    const proc = startNodeProcess(
      name,
      join(__dirname, '../fixtures/slow-agents.js'),
      {
        FLEX_NATS_URL: this.natsUrl,
        FLEX_NATS_PREFIX: this.prefix,
        SLOW_AGENT_DELAY_MS: String(this.options.agentDelayMs ?? 0),
        SLOW_AGENT_LOG: logFile,
        SLOW_AGENT_HEARTBEAT_S: '1',
        ...this.options.instanceEnv?.[name],
      },
      join(__dirname, '../..'),
    );
    return instanceOf(name, 'agents', proc, { logFile });
  }
}

const KINDS: readonly InstanceKind[] = [...SERVICES, 'agents'];

/** Where `<kind>-<n>` sorts: by kind, then by n. */
function order(name: string): number {
  const [, kind, n] = /^(.*)-(\d+)$/.exec(name) ?? [];
  return KINDS.indexOf(kind as InstanceKind) * 10_000 + Number(n);
}

function instanceOf(
  name: string,
  kind: InstanceKind,
  proc: ManagedProcess,
  where: Pick<Instance, 'url' | 'port' | 'logFile'>,
): Instance {
  return {
    name,
    kind,
    proc,
    ...where,
    get running() {
      return proc.child.exitCode === null && proc.child.signalCode === null;
    },
  };
}
