'use strict';
// What observability costs: Flex embedded (PGlite on disk, the reference agents, as `npm start`)
// running the spec's sample envelope with tracing off (the default) and on (every span exported over
// OTLP/HTTP to a receiver in this process, which counts what it is sent), one process per mode,
// measured in interleaved repetitions (off, on, off, on…) so the machine's drift falls on both.
// Logs stay at `error` in both modes and /metrics is always on: the difference is the tracing.
const http = require('node:http');
const { join } = require('node:path');
const { forkChild } = require('../lib/child');
const { closedLoop, median, summarizeLoad } = require('../lib/load');
const { runFlex } = require('../lib/flex-http');
const { BODIES } = require('../lib/systems');

function settings(quick) {
  return quick
    ? { levels: [1, 20], reps: 2, runs: (c) => (c === 1 ? 10 : 40), warmup: 5 }
    : { levels: [1, 20], reps: 4, runs: (c) => (c === 1 ? 30 : 100), warmup: 15 };
}

/** An OTLP/HTTP receiver that accepts every export and counts the spans it holds. */
async function startReceiver() {
  let spans = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      bytes += body.length;
      spans += (body.match(/"spanId":/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    counts: () => ({ spans, bytes }),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function startFlex(mode, receiver) {
  const env = { BENCH_STORE: 'disk', BENCH_AGENTS: 'reference' };
  if (mode === 'on') {
    env.BENCH_OTEL_ENDPOINT = receiver.url;
  }
  const child = forkChild(join(__dirname, '../systems/flex-embedded.js'), env);
  try {
    const { url } = await child.call('start');
    return { child, url };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

async function run(ctx) {
  const s = settings(ctx.quick);
  const receiver = await startReceiver();
  const flexes = {};
  try {
    for (const mode of ['off', 'on']) {
      ctx.log(`telemetry: starting Flex embedded, tracing ${mode}`);
      flexes[mode] = await startFlex(mode, receiver);
      const load = (concurrency, runs) =>
        closedLoop({ concurrency, runs, runOnce: () => runFlex(flexes[mode].url, BODIES.sample) });
      flexes[mode].load = load;
      await load(1, s.warmup);
    }
    const samples = [];
    for (const concurrency of s.levels)
      for (let rep = 0; rep < s.reps; rep++)
        for (const mode of ['off', 'on']) {
          const before = receiver.counts().spans;
          const loaded = summarizeLoad(await flexes[mode].load(concurrency, s.runs(concurrency)));
          samples.push({ mode, concurrency, ...loaded, spans: receiver.counts().spans - before });
        }
    const rows = [];
    for (const concurrency of s.levels)
      for (const mode of ['off', 'on']) {
        const mine = samples.filter((x) => x.mode === mode && x.concurrency === concurrency);
        const runs = mine.reduce((n, x) => n + x.runs, 0);
        rows.push({
          mode,
          concurrency,
          reps: mine.length,
          runs,
          errors: mine.reduce((n, x) => n + x.errors, 0),
          runsPerSec: median(mine.map((x) => x.runsPerSec)),
          p50Ms: median(mine.map((x) => x.p50Ms)),
          // Spans reach the receiver in batches, up to a few seconds late: an estimate per run.
          spansPerRun: runs ? mine.reduce((n, x) => n + x.spans, 0) / runs : undefined,
        });
      }
    const ratios = s.levels.map((concurrency) => {
      const off = rows.find((r) => r.mode === 'off' && r.concurrency === concurrency);
      const on = rows.find((r) => r.mode === 'on' && r.concurrency === concurrency);
      return { concurrency, runsPerSec: on.runsPerSec / off.runsPerSec, p50: on.p50Ms / off.p50Ms };
    });
    for (const r of ratios)
      ctx.log(
        `telemetry: ${r.concurrency} at once, tracing on / off: ${r.runsPerSec.toFixed(2)}× runs/s, ` +
          `${r.p50.toFixed(2)}× p50`,
      );
    return { workload: 'sample', rows, ratios, spansReceived: receiver.counts().spans };
  } finally {
    for (const flex of Object.values(flexes)) await flex.child.stop();
    await receiver.close();
  }
}

module.exports = {
  name: 'telemetry',
  title: 'Tracing on vs off: Flex embedded, sample envelope, interleaved',
  run,
};
