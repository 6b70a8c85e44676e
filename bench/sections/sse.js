'use strict';
// SSE fan-out: many clients on one gateway (Flex distributed) following runs. The runs are held at
// their first agent (the echo agents' gate) until every reader is attached and caught up; then the
// gate opens and each reader times every later frame from the event's own timestamp (taken by the
// service that appends it) to its arrival. Gateway RSS before, with the readers attached, and at
// its peak during the fan-out (sampled every 50 ms); gateway CPU during the fan-out.
const http = require('node:http');
const { TOKEN, runFlex } = require('../lib/flex-http');
const { percentile } = require('../lib/load');
const { cpuSeconds, memory } = require('../lib/proc');
const { BODIES } = require('../lib/systems');

const MB = 2 ** 20;

/** GET runs/:id/events until the stream ends; `attached` resolves on the first node_start frame. */
function follow(baseUrl, runId) {
  let onAttached;
  const attached = new Promise((resolve) => (onAttached = resolve));
  const frames = [];
  const done = new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}/api/v1/flex/runs/${runId}/events`,
      { agent: false, headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`runs/${runId}/events answered ${res.statusCode}`));
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk) => {
          const receivedAt = Date.now();
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const frame = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const type = (frame.match(/^event: (\S+)$/m) ?? [])[1];
            const stamp = (frame.match(/"timestamp":"([^"]+)"/) ?? [])[1];
            if (!type) continue;
            frames.push({ type, receivedAt, at: stamp ? Date.parse(stamp) : undefined });
            if (type === 'node_start') onAttached();
          }
        });
        res.on('end', () => resolve(frames));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  done.catch(() => onAttached());
  return { attached, done };
}

/** The run's id as soon as run.stream answers; the stream itself is read to its end in the background. */
async function startHeldRun(url) {
  let resolveId;
  const id = new Promise((resolve) => (resolveId = resolve));
  const finished = runFlex(url, BODIES.echo, {
    onResponse: (res) => resolveId(res.headers.get('x-flex-run-id')),
  });
  finished.catch(() => resolveId(undefined));
  return { runId: await id, finished };
}

const withTimeout = (promise, ms, what) =>
  Promise.race([
    promise,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms).unref(),
    ),
  ]);

async function run(ctx) {
  const clients = ctx.quick ? 200 : 1000;
  const runs = ctx.quick ? 4 : 10;
  const { flex } = await ctx.distributed();
  await flex.useAgents('echo-gated');
  const gw = flex.gatewayPid;
  const before = memory(gw).current;
  const held = await Promise.all(Array.from({ length: runs }, () => startHeldRun(flex.url)));
  if (held.some((h) => !h.runId)) throw new Error('a run did not start');
  ctx.log(`sse: ${runs} runs held at their first agent; attaching ${clients} readers`);
  const readers = Array.from({ length: clients }, (_, i) => follow(flex.url, held[i % runs].runId));
  await withTimeout(Promise.all(readers.map((r) => r.attached)), 120_000, 'readers attaching');
  const attached = memory(gw).current;
  let peak = attached;
  const sampler = setInterval(() => (peak = Math.max(peak, memory(gw)?.current ?? 0)), 50);
  const cpu0 = cpuSeconds(gw);
  const client0 = process.cpuUsage();
  const opened = Date.now();
  flex.openGate();
  const all = await withTimeout(Promise.all(readers.map((r) => r.done)), 180_000, 'fan-out');
  const seconds = (Date.now() - opened) / 1000;
  clearInterval(sampler);
  const cpu = cpuSeconds(gw) - cpu0;
  const client = process.cpuUsage(client0);
  await Promise.all(held.map((h) => h.finished));
  const latencies = [];
  let incomplete = 0;
  for (const frames of all) {
    if (frames[frames.length - 1]?.type !== 'complete') incomplete++;
    for (const frame of frames) if (frame.at >= opened) latencies.push(frame.receivedAt - frame.at);
  }
  if (incomplete) throw new Error(`${incomplete} readers ended before the run's complete event`);
  latencies.sort((a, b) => a - b);
  return {
    clients,
    runs,
    frames: latencies.length,
    seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1],
    gatewayRssMB: { before: before / MB, attached: attached / MB, peak: peak / MB },
    gatewayCpuSeconds: cpu,
    // The readers run in the bench's own process, on the same cores: their cost, for scale.
    clientCpuSeconds: (client.user + client.system) / 1e6,
  };
}

module.exports = { name: 'sse', title: 'SSE fan-out: readers on one gateway', needs: ['distributed'], run };
