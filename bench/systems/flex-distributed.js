'use strict';
// Flex distributed, as deployed: the five services as separate processes over NATS JetStream and
// Postgres, and the agents as one more process (the reference agents, or the bench's echo agents).
const { join } = require('node:path');
const { ECHO_CAPABILITIES, REFERENCE_CAPABILITIES } = require('../agents/echo');
const { flexEnv, waitForCapabilities } = require('../lib/flex-http');

const ROOT = join(__dirname, '..', '..');
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'];

/**
 * Starts the services on `databaseUrl` and `natsUrl` (a fresh subject prefix), without agents.
 * `useAgents(kind)` swaps the agents process: `reference`, `echo`, `echo-gated` (see echo.js) or
 * `none`, and waits until the registry lists exactly their capabilities.
 */
async function startDistributed({ databaseUrl, natsUrl }) {
  const t = require(join(ROOT, 'libs/testing/dist'));
  const env = flexEnv({
    FLEX_DATABASE_URL: databaseUrl,
    FLEX_NATS_URL: natsUrl,
    FLEX_NATS_PREFIX: t.testPrefix('bench'),
  });
  const services = [];
  let agents;
  let url;
  const stop = async () => {
    await agents?.kill('SIGTERM');
    await Promise.all(services.map((p) => p.kill('SIGTERM')));
  };
  try {
    for (const name of SERVICES) {
      const port = await t.freePort();
      const proc = t.startNodeProcess(
        name,
        join(ROOT, `services/${name}/dist/main.js`),
        { ...env, PORT: String(port) },
        ROOT,
      );
      services.push(proc);
      await t.waitForHttp(`http://127.0.0.1:${port}/readyz`, 60_000, () => proc.output());
      if (name === 'gateway') url = `http://127.0.0.1:${port}`;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    gatewayPid: services[services.length - 1].child.pid,
    pids: () => [...services, ...(agents ? [agents] : [])].map((p) => p.child.pid),
    async useAgents(kind) {
      if (agents) await agents.kill('SIGTERM');
      agents = undefined;
      if (kind === 'reference')
        agents = t.startNodeProcess('agents', join(ROOT, 'agents/reference/dist/main.js'), env, ROOT);
      else if (kind === 'echo' || kind === 'echo-gated')
        agents = t.startNodeProcess(
          'echo-agents',
          join(__dirname, '../agents/echo.js'),
          {
            ...env,
            BENCH_ECHO_GATE: kind === 'echo-gated' ? '1' : '0',
          },
          ROOT,
        );
      const expected =
        kind === 'reference' ? REFERENCE_CAPABILITIES : kind === 'none' ? [] : ECHO_CAPABILITIES;
      await waitForCapabilities(url, expected).catch((error) => {
        throw new Error(`${error.message}\n${agents?.output().slice(-2000) ?? ''}`);
      });
    },
    openGate() {
      agents?.child.kill('SIGUSR2');
    },
    stop,
  };
}

module.exports = { startDistributed };
