import { createDatabase, type FlexDatabase } from '@flex/event-store';
import { startNats, startPostgres, type NatsTestServer, type PostgresServer } from '@flex/testing';
import { Cluster, type Topology } from '../cluster/cluster';
import { chaosScale } from './chaos-support';
import { HELPERS, WRITER } from './process-chaos';

/** The writer's stand-in: serves the writer's facets under another capability id (agents-3). */
export const BACKUP = 'BackupWriterAgent.linkedinVariants';
/** Each agent call takes this long unless a scenario says otherwise: runs stay in flight a while. */
export const AGENT_DELAY_MS = 1_000;
/** The executors' agent timeout unless a scenario says otherwise (above the slowest agent's call). */
export const AGENT_TIMEOUT_MS = 30_000;
/** The services' bus ack wait (FLEX_BUS_ACK_WAIT_MS): its floor at CI scale, so a call slower than it stays short. */
export const ACK_WAIT_MS = chaosScale() === 'full' ? 15_000 : 10_000;

/**
 * The cluster the process-level chaos scenarios fault, owning every server it runs on so each can
 * be killed: its own Postgres (restartable on the same port and data directory), its own
 * nats-server, several instances of each service (test/cluster/cluster.ts), and three agent
 * processes: agents-1 the strategy and QA agents, agents-2 the writer (the agent faults hit it),
 * agents-3 a backup writer (the next capable agent).
 */
export interface ChaosCluster {
  cluster: Cluster;
  pg: PostgresServer;
  nats: NatsTestServer;
  /** A pool on the cluster's database, for the scenarios' reads. */
  db: FlexDatabase;
  /** The writer's env (agents-2), read at each (re)start: a scenario changes it, then restarts it. */
  writerEnv: Record<string, string>;
  /** Every executor's env, read at each (re)start. */
  executorEnv: Record<string, string>;
  logs(): string;
}

const TOPOLOGY: Record<'full' | 'ci', Topology> = {
  full: { registry: 2, planner: 2, validator: 2, executor: 3, gateway: 2, agents: 3 },
  ci: { registry: 1, planner: 1, validator: 1, executor: 2, gateway: 2, agents: 3 },
};

let shared: Promise<ChaosCluster> | undefined;

/**
 * One cluster per test file: the scenarios a file runs (one at full scale, all of them in the
 * CI-scale spec) share it, so it is started once; it stops after the file's last test.
 */
export function chaosCluster(): Promise<ChaosCluster> {
  return (shared ??= startChaosCluster());
}

afterAll(async () => {
  const running = await shared?.catch(() => undefined);
  await running?.db.close();
  await running?.cluster.stop();
  await Promise.all([running?.nats.stop(), running?.pg.stop()]);
}, 120_000);

async function startChaosCluster(): Promise<ChaosCluster> {
  // Crash-safe commits: an append acknowledged before the crash must be there after it.
  const [pg, nats] = await Promise.all([startPostgres({ crashSafeCommits: true }), startNats()]);
  const writerEnv = { SLOW_AGENT_ONLY: WRITER, SLOW_AGENT_DELAY_MS: String(AGENT_DELAY_MS) };
  const executorEnv = { FLEX_AGENT_TIMEOUT_MS: String(AGENT_TIMEOUT_MS) };
  const topology = TOPOLOGY[chaosScale()];
  const executors = Array.from({ length: topology.executor }, (_, i) => [`executor-${i + 1}`, executorEnv]);
  const cluster = await withTestServer(pg.url, () =>
    Cluster.start({
      label: 'chaos',
      topology,
      natsUrl: nats.url,
      agentDelayMs: AGENT_DELAY_MS,
      // One client token submits every run: its per-token limits must not be what refuses them.
      env: {
        FLEX_SHUTDOWN_GRACE_MS: '10000',
        FLEX_BUS_ACK_WAIT_MS: String(ACK_WAIT_MS),
        FLEX_LIMIT_RUNS_PER_TOKEN: '1000',
        FLEX_LIMIT_STREAMS_PER_TOKEN: '1000',
        FLEX_LIMIT_REQUESTS_PER_SECOND: '1000',
        FLEX_LIMIT_REQUEST_BURST: '1000',
      },
      instanceEnv: {
        ...Object.fromEntries(executors),
        'agents-1': { SLOW_AGENT_ONLY: HELPERS },
        'agents-2': writerEnv,
        'agents-3': { SLOW_AGENT_ONLY: WRITER, SLOW_AGENT_RENAME: `${WRITER}=${BACKUP}` },
      },
    }),
  ).catch(async (error: unknown) => {
    await Promise.all([nats.stop(), pg.stop()]);
    throw error;
  });
  const db = await createDatabase({ url: cluster.databaseUrl, poolSize: 2 });
  const logs = () => `${cluster.logs()}\n--- nats-server ---\n${nats.log()}`;
  await cluster.client(0).waitForActiveCapabilities(4, 60_000, logs);
  return { cluster, pg, nats, db, writerEnv, executorEnv, logs };
}

/** createTestDatabase makes its database on FLEX_TEST_DATABASE_URL's server: ours, for the cluster's start. */
async function withTestServer<T>(url: string, start: () => Promise<T>): Promise<T> {
  const shared = process.env.FLEX_TEST_DATABASE_URL;
  process.env.FLEX_TEST_DATABASE_URL = url;
  try {
    return await start();
  } finally {
    process.env.FLEX_TEST_DATABASE_URL = shared;
  }
}
