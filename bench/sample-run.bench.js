'use strict';
// The spec's sample envelope end to end (POST run.stream → complete), embedded and distributed.
// Embedded: one in-process Flex on in-memory PGlite. Distributed: five service processes and the
// agents process over a throwaway Postgres and NATS (or FLEX_TEST_DATABASE_URL / FLEX_TEST_NATS_URL).
require('reflect-metadata');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { line } = require('./stats');

const ROOT = join(__dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const envelope = JSON.parse(readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8'));
const TOKEN = 'bench-client-token';

async function timeRun(baseUrl) {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/api/v1/flex/run.stream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(envelope),
  });
  const text = await res.text();
  if (!text.includes('event: complete')) throw new Error(`run did not complete: ${text.slice(-500)}`);
  return performance.now() - started;
}

async function measure(label, baseUrl) {
  await timeRun(baseUrl); // warm-up
  const samples = [];
  for (let i = 0; i < RUNS; i++) samples.push(await timeRun(baseUrl));
  console.log(line(label, samples));
}

async function embedded(onDisk) {
  const { startEmbedded } = require(join(ROOT, 'apps/flex/dist'));
  const { loadConfig } = require(join(ROOT, 'libs/runtime/dist'));
  const dir = onDisk ? require('node:fs').mkdtempSync(join(require('node:os').tmpdir(), 'flex-bench-')) : undefined;
  const config = loadConfig({ PORT: '0', FLEX_API_TOKENS: `${TOKEN}:client`, FLEX_LOG_LEVEL: 'error', ...(dir ? { FLEX_DATA_DIR: dir } : {}) });
  const flex = await startEmbedded({ config, dataDir: onDisk ? undefined : null });
  try {
    await measure(`sample run, embedded (PGlite ${onDisk ? 'on disk, as npm start' : 'in memory'})`, flex.url);
  } finally {
    await flex.close();
    if (dir) require('node:fs').rmSync(dir, { recursive: true, force: true });
  }
}

async function distributed() {
  const t = { ...require(join(ROOT, 'libs/testing/dist')), ...require(join(ROOT, 'libs/testing/dist/postgres-server')), ...require(join(ROOT, 'libs/testing/dist/nats-server')) };
  const stops = [];
  const procs = [];
  try {
    let dbUrl = process.env.FLEX_TEST_DATABASE_URL;
    let natsUrl = process.env.FLEX_TEST_NATS_URL;
    if (!dbUrl) { const pg = await t.startPostgres(); stops.push(pg.stop); dbUrl = pg.url; }
    if (!natsUrl) { const nats = await t.startNats(); stops.push(nats.stop); natsUrl = nats.url; }
    process.env.FLEX_TEST_DATABASE_URL = dbUrl;
    const db = await t.createTestDatabase('bench');
    stops.push(db.drop);
    const env = { FLEX_DATABASE_URL: db.url, FLEX_NATS_URL: natsUrl, FLEX_NATS_PREFIX: t.testPrefix('bench'), FLEX_LOG_LEVEL: 'error', FLEX_API_TOKENS: `${TOKEN}:client` };
    let gateway;
    for (const name of ['registry', 'planner', 'validator', 'executor', 'gateway']) {
      const port = await t.freePort();
      if (name === 'gateway') gateway = `http://127.0.0.1:${port}`;
      const proc = t.startNodeProcess(name, join(ROOT, `services/${name}/dist/main.js`), { ...env, PORT: String(port) }, ROOT);
      procs.push(proc);
      await t.waitForHttp(`http://127.0.0.1:${port}/readyz`, 60000, () => proc.output());
    }
    procs.push(t.startNodeProcess('agents', join(ROOT, 'agents/reference/dist/main.js'), env, ROOT));
    await t.waitFor(async () => {
      const res = await fetch(`${gateway}/api/v1/flex/capabilities`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const body = await res.json();
      return (body.capabilities ?? []).filter((c) => c.status === 'active').length >= 3;
    }, 60000);
    await measure('sample run, distributed (5 services + agents)', gateway);
  } finally {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    for (const stop of stops.reverse()) await stop();
  }
}

(async () => {
  await embedded(false);
  await embedded(true);
  await distributed();
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
