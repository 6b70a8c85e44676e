'use strict';
// Side by side, in one run, on one Postgres: the 5-node echo plan on Flex embedded, Flex
// distributed, LangGraph JS + PostgresSaver and DBOS Transact, and the spec's sample envelope on
// both Flexes; one run at a time and at 5/20/50 at once. Per level: runs/s, p50/p99 latency,
// CPU-seconds per run (the system's processes, its Postgres backends, NATS), peak RSS (the system's
// own processes, during the level); medians of the repetitions; Flex's ratios to each peer.
const { median, summarizeLoad } = require('../lib/load');
const { createMeter } = require('../lib/proc');
const { compareSystems } = require('../lib/systems');

const PEERS = ['langgraph', 'dbos'];

function settings(quick) {
  return quick
    ? { levels: [1, 20], reps: 1, runs: (c) => (c === 1 ? 5 : 2 * c), warmup: { sequential: 3, burst: 0 } }
    : {
        levels: [1, 5, 20, 50],
        reps: 3,
        runs: (c) => Math.max(20, 2 * c),
        warmup: { sequential: 10, burst: 50, seconds: 10 },
      };
}

async function measureLevel(ctx, system, concurrency, runs, reps) {
  const samples = [];
  for (let rep = 0; rep < reps; rep++) {
    const meter = createMeter({
      pids: system.pids,
      admin: ctx.infra.admin,
      database: system.database,
      infraPids: system.infraPids,
    });
    await meter.start();
    const loaded = await system.load(concurrency, runs);
    const used = await meter.stop();
    const s = summarizeLoad(loaded);
    const perRun = (seconds) =>
      seconds === undefined || s.runs === 0 ? undefined : (seconds * 1000) / s.runs;
    samples.push({
      ...s,
      cpuMsPerRun: perRun(used.cpuSeconds.total),
      cpuMsPerRunApp: perRun(used.cpuSeconds.app),
      cpuMsPerRunDb: perRun(used.cpuSeconds.db),
      cpuMsPerRunInfra: perRun(used.cpuSeconds.infra),
      peakRssMB: used.peakRssBytes / 2 ** 20,
    });
  }
  const field = (k) => median(samples.map((x) => x[k]));
  return {
    concurrency,
    runsPerLevel: runs,
    reps,
    runs: samples.reduce((n, x) => n + x.runs, 0),
    errors: samples.reduce((n, x) => n + x.errors, 0),
    firstError: samples.find((x) => x.firstError)?.firstError,
    runsPerSec: field('runsPerSec'),
    p50Ms: field('p50Ms'),
    p99Ms: field('p99Ms'),
    cpuMsPerRun: field('cpuMsPerRun'),
    cpuMsPerRunApp: field('cpuMsPerRunApp'),
    cpuMsPerRunDb: field('cpuMsPerRunDb'),
    cpuMsPerRunInfra: field('cpuMsPerRunInfra'),
    peakRssMB: Math.max(...samples.map((x) => x.peakRssMB)),
  };
}

async function measureWorkload(ctx, system, session, workload, s) {
  const opened = await session.use(workload);
  // Warm-up: JIT, compiled schemas, pools; not measured. Then, in full mode, load at the top level
  // until `seconds` have passed since the warm-up began, the same time for every system: a system with
  // more code takes more runs to reach its steady state (Flex embedded: about 600), which a service
  // running for days is in, and a count of runs would warm the slower system less.
  const warmStart = performance.now();
  const top = Math.max(...s.levels);
  await opened.load(1, s.warmup.sequential);
  if (s.warmup.burst) await opened.load(top, s.warmup.burst);
  while (s.warmup.seconds && performance.now() - warmStart < s.warmup.seconds * 1000)
    await opened.load(top, 2 * top);
  const levels = [];
  for (const c of s.levels) {
    const level = await measureLevel(ctx, opened, c, s.runs(c), s.reps);
    ctx.log(
      `compare: ${system.label}, ${workload}, ${c} at once: ${level.runsPerSec.toFixed(1)} runs/s, ` +
        `p50 ${level.p50Ms?.toFixed(0)} ms${level.errors ? `, ${level.errors} failed (${level.firstError})` : ''}`,
    );
    levels.push({ system: system.id, label: system.label, workload, ...level });
  }
  return levels;
}

/** One system, each of its workloads; a failure leaves the others' figures standing. */
async function measureSystem(ctx, system, s, rows, failures, durable) {
  let session;
  try {
    ctx.log(`compare: ${system.label}: starting`);
    session = await system.start();
    if (session.durableRowsPerRun) durable[system.id] = session.durableRowsPerRun;
    for (const workload of system.workloads)
      rows.push(...(await measureWorkload(ctx, system, session, workload, s)));
  } catch (error) {
    ctx.log(`compare: ${system.label} failed: ${error.stack ?? error}`);
    const measured = new Set(rows.filter((r) => r.system === system.id).map((r) => r.workload));
    for (const workload of system.workloads.filter((w) => !measured.has(w)))
      failures.push({
        system: system.id,
        label: system.label,
        workload,
        error: String(error.message ?? error),
      });
  } finally {
    await session?.stop();
  }
}

/** Flex's runs/s and CPU per run against each peer's, level by level (echo plan). */
function ratios(rows) {
  const out = [];
  for (const flex of rows.filter((r) => r.system.startsWith('flex') && r.workload === 'echo')) {
    for (const peer of PEERS) {
      const p = rows.find((r) => r.system === peer && r.concurrency === flex.concurrency);
      if (!p) continue;
      out.push({
        system: flex.system,
        peer,
        concurrency: flex.concurrency,
        runsPerSec: flex.runsPerSec / p.runsPerSec,
        cpuPerRun: flex.cpuMsPerRun / p.cpuMsPerRun,
        p50: flex.p50Ms / p.p50Ms,
      });
    }
  }
  return out;
}

async function run(ctx) {
  const s = settings(ctx.quick);
  const rows = [];
  const failures = [];
  const durable = {};
  for (const system of compareSystems(ctx)) await measureSystem(ctx, system, s, rows, failures, durable);
  return { levels: s.levels, reps: s.reps, rows, ratios: ratios(rows), failures, durableRowsPerRun: durable };
}

module.exports = {
  name: 'compare',
  title: 'Side by side: 5-node echo plan and sample envelope',
  needs: ['distributed'],
  run,
};
