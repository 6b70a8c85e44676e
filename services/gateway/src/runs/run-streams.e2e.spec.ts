import { join } from 'node:path';
import { createDatabase, EventStore, type FlexDatabase } from '@flex/event-store';
import {
  createTestDatabase,
  FlexClient,
  freePort,
  natsTestUrl,
  startNodeProcess,
  testPrefix,
  waitFor,
  waitForHttp,
  type ManagedProcess,
  type TestDatabase,
} from '@flex/testing';
import { describeRunStreams } from './test-support/run-streams.behaviour';

const ROOT = join(__dirname, '../../../..');
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'] as const;
const TOKENS = 'streams-client:client,streams-operator:operator';

/**
 * Distributed mode (built `dist/`): five service processes and the agents over NATS JetStream and
 * Postgres. The gateway hears of the executor's events only through NATS, so this is the path
 * where a stream depends on another process's publication.
 */
describeRunStreams('distributed', async () => {
  const procs: ManagedProcess[] = [];
  const logs = () => procs.map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`).join('\n');
  let test: TestDatabase | undefined;
  let reader: FlexDatabase | undefined;
  const close = async () => {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    await reader?.close();
    await test?.drop();
  };
  try {
    test = await createTestDatabase('run_streams');
    const env = {
      FLEX_DATABASE_URL: test.url,
      FLEX_NATS_URL: natsTestUrl(),
      FLEX_NATS_PREFIX: testPrefix('streams'),
      FLEX_LOG_LEVEL: 'warn',
      FLEX_API_TOKENS: TOKENS,
    };
    const url = await startServices(procs, env, logs);
    const { FLEX_NATS_URL, FLEX_NATS_PREFIX, FLEX_LOG_LEVEL } = env;
    const agents = join(ROOT, 'agents/reference/dist/main.js');
    procs.push(startNodeProcess('agents', agents, { FLEX_NATS_URL, FLEX_NATS_PREFIX, FLEX_LOG_LEVEL }, ROOT));
    const client = new FlexClient(url, 'streams-client');
    await waitFor(async () => (await activeCapabilities(client)) >= 3, 60_000, logs);
    reader = await createDatabase({ url: test.url, poolSize: 2 });
    const store = new EventStore(reader.db);
    return {
      client,
      operator: new FlexClient(url, 'streams-operator'),
      stored: (runId) => store.readStream(`run-${runId}`),
      logs,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
});

/** Start each service process in turn (each migrates on start), returning the gateway's URL. */
async function startServices(
  procs: ManagedProcess[],
  env: Record<string, string>,
  logs: () => string,
): Promise<string> {
  let gateway = '';
  for (const name of SERVICES) {
    const port = await freePort();
    const script = join(ROOT, `services/${name}/dist/main.js`);
    procs.push(startNodeProcess(name, script, { ...env, PORT: String(port) }, ROOT));
    await waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, logs);
    if (name === 'gateway') gateway = `http://127.0.0.1:${port}`;
  }
  return gateway;
}

async function activeCapabilities(client: FlexClient): Promise<number> {
  const res = await client.json('GET', '/api/v1/flex/capabilities');
  const capabilities: Array<{ status?: string }> = res.body?.capabilities ?? [];
  return capabilities.filter((c) => c.status === 'active').length;
}
