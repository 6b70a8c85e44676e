'use strict';
// Flex embedded (startEmbedded from apps/flex/dist) in its own process, driven by the bench over
// IPC. BENCH_STORE: `disk` (PGlite on disk, as `npm start`), `memory`, or `postgres`
// (FLEX_DATABASE_URL). BENCH_AGENTS: `reference` (the reference agents, as `npm start`), `echo`
// (the bench's five echo agents, in-process on the runtime's messaging) or `none`. BENCH_OTEL_ENDPOINT:
// export every span over OTLP/HTTP to that receiver (tracing is off without it).
require('reflect-metadata');
const { rmSync } = require('node:fs');
const { join } = require('node:path');
const { serveParent } = require('../lib/child');
const { flexEnv, tempDir } = require('../lib/flex-http');

const ROOT = join(__dirname, '..', '..');
let flex;
let agents;
let dir;

async function start() {
  const { startEmbedded } = require(join(ROOT, 'apps/flex/dist'));
  const { loadConfig } = require(join(ROOT, 'libs/runtime/dist'));
  const store = process.env.BENCH_STORE ?? 'disk';
  const kind = process.env.BENCH_AGENTS ?? 'reference';
  dir = process.env.BENCH_DATA_DIR ?? tempDir('embedded');
  const env = flexEnv({ PORT: '0', FLEX_DATA_DIR: dir });
  if (store === 'postgres') env.FLEX_DATABASE_URL = process.env.BENCH_DATABASE_URL;
  // Tracing on, every span exported (the telemetry section); metrics' OTLP export stays off.
  if (process.env.BENCH_OTEL_ENDPOINT)
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `${process.env.BENCH_OTEL_ENDPOINT}/v1/traces`;
  flex = await startEmbedded({
    config: loadConfig(env),
    dataDir: store === 'memory' ? null : undefined,
    agents: kind === 'reference',
  });
  if (kind === 'echo') {
    const { startEchoAgents } = require('../agents/echo');
    agents = await startEchoAgents(flex.runtime.messaging, flex.runtime.prefix);
  }
  return { url: flex.url, pid: process.pid };
}

serveParent({
  start,
  /** The echo agents join the running instance (beside the reference agents, if any). */
  startEcho: async () => {
    const { startEchoAgents } = require('../agents/echo');
    agents ??= await startEchoAgents(flex.runtime.messaging, flex.runtime.prefix);
  },
  stop: async () => {
    await agents?.stop();
    await flex?.close();
    if (dir && !process.env.BENCH_DATA_DIR) rmSync(dir, { recursive: true, force: true });
  },
});
