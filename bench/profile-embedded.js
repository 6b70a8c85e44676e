#!/usr/bin/env node
'use strict';
// Profiling driver for embedded Flex (issue 13, point 2): starts startEmbedded from apps/flex/dist,
// fires runs of examples/envelope.json (or --envelope <file>) sequentially and then `--concurrency`
// at a time, prints runs/s and latency, and with --profile writes a CPU profile of the concurrent
// phase only and prints its top self-time functions and where the time goes by package.
//
//   node bench/profile-embedded.js [--runs 40] [--concurrency 20] [--disk] [--profile out.cpuprofile]
//                                  [--envelope file] [--repeat 3] [--top 30] [--echo] [--queries]
// --echo runs the bench's 5-node echo plan (bench/agents/echo.js, in-process) instead of the envelope.
// Each phase also prints the CPU its threads spent per run (main thread, PGlite worker, the rest).
require('reflect-metadata');
const { readFileSync, writeFileSync, mkdtempSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');
const inspector = require('node:inspector');
const { summarizeProfile } = require('./cpuprofile-top');

const ROOT = join(__dirname, '..');
const TOKEN = 'bench-client-token';

function args() {
  const out = { runs: 40, concurrency: 20, disk: false, profile: undefined, repeat: 1, top: 30, seqRuns: 15 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--disk') out.disk = true;
    else if (a === '--runs') out.runs = Number(argv[++i]);
    else if (a === '--seq-runs') out.seqRuns = Number(argv[++i]);
    else if (a === '--concurrency') out.concurrency = Number(argv[++i]);
    else if (a === '--profile') out.profile = argv[++i];
    else if (a === '--envelope') out.envelope = argv[++i];
    else if (a === '--repeat') out.repeat = Number(argv[++i]);
    else if (a === '--top') out.top = Number(argv[++i]);
    else if (a === '--queries') out.queries = true;
    else if (a === '--echo') out.echo = true;
    else throw new Error(`unknown argument ${a}`);
  }
  return out;
}

async function timeRun(baseUrl, body) {
  const started = performance.now();
  const res = await fetch(`${baseUrl}/api/v1/flex/run.stream`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body,
  });
  const text = await res.text();
  if (!text.includes('event: complete')) throw new Error(`run did not complete: ${text.slice(-800)}`);
  return performance.now() - started;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function pct(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

/** CPU milliseconds (user + system) of each thread of this process, by thread id (/proc/self/task). */
function cpuByThread() {
  const { readdirSync } = require('node:fs');
  const out = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * The id of the thread PGlite runs on. Node names its worker threads, V8's and libuv's alike
 * ("node"), so it is found by what it does: the thread, other than the main one, that spends the
 * most CPU while the database alone is kept busy.
 */
async function pgliteThread(db) {
  const { sql } = require('kysely');
  const before = cpuByThread();
  for (let i = 0; i < 300; i++) await sql`select count(*) from generate_series(1, 2000)`.execute(db);
  let best;
  for (const [tid, ms] of cpuByThread()) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid !== process.pid && (best === undefined || used > best.used)) best = { tid, used };
  }
  return best?.tid;
}

let pgliteTid;

/** CPU milliseconds of this process's threads by kind: main, the PGlite worker, the rest (V8, libuv). */
function threadCpu() {
  const out = {};
  for (const [tid, ms] of cpuByThread()) {
    const key = tid === process.pid ? 'main' : tid === pgliteTid ? 'PGlite worker' : 'V8/libuv';
    out[key] = (out[key] ?? 0) + ms;
  }
  return out;
}

/** CPU per run by thread kind between two threadCpu() readings, as text. */
function threadText(before, after, n) {
  return Object.keys(after)
    .map((k) => `${k} ${((after[k] - (before[k] ?? 0)) / n).toFixed(1)}`)
    .join(', ');
}

/** CPU milliseconds (user + system) of this process since `from`. */
function cpuMs(from) {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1000;
}

async function sequential(url, body, n) {
  const lat = [];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const t = threadCpu();
  for (let i = 0; i < n; i++) lat.push(await timeRun(url, body));
  const secs = (performance.now() - t0) / 1000;
  const threads = threadText(t, threadCpu(), n);
  return { rps: n / secs, p50: median(lat), p99: pct(lat, 0.99), cpu: cpuMs(c0) / n, threads };
}

async function concurrent(url, body, n, c) {
  const lat = [];
  let next = 0;
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const t = threadCpu();
  const worker = async () => {
    while (next < n) {
      next++;
      lat.push(await timeRun(url, body));
    }
  };
  await Promise.all(Array.from({ length: c }, worker));
  const secs = (performance.now() - t0) / 1000;
  const threads = threadText(t, threadCpu(), n);
  return { rps: n / secs, p50: median(lat), p99: pct(lat, 0.99), cpu: cpuMs(c0) / n, threads };
}

function post(session, method, params = {}) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

/** Counts PGlite queries by statement during the measured phase (--queries): calls, rows, ms. */
function censusQueries() {
  const { PGlite } = require('@electric-sql/pglite');
  // PGlite on the main thread (FLEX_PGLITE_THREAD=main), or the client of the one in a worker thread.
  const { PGliteWorkerClient } = require(join(ROOT, 'libs/event-store/dist/pglite-worker-client'));
  const stats = new Map();
  let on = false;
  for (const prototype of [PGlite.prototype, PGliteWorkerClient.prototype]) count(prototype);
  function count(prototype) {
    const original = prototype.query;
    prototype.query = async function (text, params, options) {
      if (!on) return original.call(this, text, params, options);
      const t0 = performance.now();
      const result = await original.call(this, text, params, options);
      const limit = /transaction_text/.test(text) ? `[limit ${params?.at(-1)}] ` : '';
      const key = (limit + text)
        .replace(/\s+/g, ' ')
        .replace(/\(\$\d+(, \$\d+)*\)/g, '($…)')
        .slice(0, 160);
      const s = stats.get(key) ?? { calls: 0, rows: 0, ms: 0, bytes: 0 };
      s.calls++;
      s.bytes += JSON.stringify(result.rows ?? []).length;
      s.rows += result.rows?.length ?? 0;
      s.ms += performance.now() - t0;
      stats.set(key, s);
      return result;
    };
  }
  return {
    start: () => (on = true),
    report(runs) {
      on = false;
      const all = [...stats].sort((a, b) => b[1].ms - a[1].ms);
      const calls = all.reduce((n, [, s]) => n + s.calls, 0);
      console.log(`\nqueries: ${(calls / runs).toFixed(1)} per run`);
      for (const [k, s] of all.slice(0, 25))
        console.log(
          `  ${(s.calls / runs).toFixed(1).padStart(6)}/run ${(s.rows / s.calls).toFixed(1).padStart(6)} rows ` +
            `${(s.ms / s.calls).toFixed(2).padStart(7)} ms ${String(Math.round(s.bytes / runs)).padStart(7)} B/run  ${k.slice(0, 110)}`,
        );
    },
  };
}

async function main() {
  const opts = args();
  const census = opts.queries ? censusQueries() : undefined;
  const echo = opts.echo ? require('./agents/echo') : undefined;
  const body = echo
    ? JSON.stringify(echo.echoEnvelope())
    : readFileSync(opts.envelope ?? join(ROOT, 'examples/envelope.json'), 'utf8');
  const { startEmbedded } = require(join(ROOT, 'apps/flex/dist'));
  const { loadConfig } = require(join(ROOT, 'libs/runtime/dist'));
  const dir = mkdtempSync(join(tmpdir(), 'flex-profile-'));
  const config = loadConfig({
    PORT: '0',
    FLEX_DATA_DIR: dir,
    ...(process.env.FLEX_PGLITE_THREAD && { FLEX_PGLITE_THREAD: process.env.FLEX_PGLITE_THREAD }),
    FLEX_API_TOKENS: `${TOKEN}:client`,
    FLEX_LOG_LEVEL: 'error',
    FLEX_LIMIT_RUNS_PER_TOKEN: '1000',
    FLEX_LIMIT_STREAMS_PER_TOKEN: '1000',
    FLEX_LIMIT_CONNECTIONS_PER_TOKEN: '1000',
    FLEX_LIMIT_REQUESTS_PER_SECOND: '100000',
    FLEX_LIMIT_REQUEST_BURST: '100000',
  });
  const flex = await startEmbedded({ config, dataDir: opts.disk ? undefined : null, agents: !echo });
  const agents = echo && (await echo.startEchoAgents(flex.runtime.messaging, flex.runtime.prefix));
  pgliteTid = await pgliteThread(flex.runtime.database.db);
  try {
    for (let i = 0; i < 3; i++) await timeRun(flex.url, body); // warm-up
    await concurrent(flex.url, body, opts.concurrency, opts.concurrency);
    const mode = opts.disk ? 'PGlite on disk' : 'PGlite in memory';
    for (let r = 0; r < opts.repeat; r++) {
      const seq = await sequential(flex.url, body, opts.seqRuns);
      const session = new inspector.Session();
      if (opts.profile && r === opts.repeat - 1) {
        session.connect();
        await post(session, 'Profiler.enable');
        await post(session, 'Profiler.setSamplingInterval', { interval: 500 });
        await post(session, 'Profiler.start');
      }
      if (r === opts.repeat - 1) census?.start();
      const con = await concurrent(flex.url, body, opts.runs, opts.concurrency);
      if (r === opts.repeat - 1) census?.report(opts.runs);
      const f = (x) => x.toFixed(1);
      console.log(
        `${mode}: sequential ${f(seq.rps)} runs/s (p50 ${f(seq.p50)} ms, p99 ${f(seq.p99)} ms, ` +
          `${f(seq.cpu)} CPU-ms/run); ${opts.concurrency} concurrent ${f(con.rps)} runs/s ` +
          `(p50 ${f(con.p50)} ms, p99 ${f(con.p99)} ms, ${f(con.cpu)} CPU-ms/run); ` +
          `ratio ${(con.rps / seq.rps).toFixed(2)}\n  CPU-ms/run by thread: sequential ${seq.threads}; ` +
          `concurrent ${con.threads}`,
      );
      if (opts.profile && r === opts.repeat - 1) {
        const { profile } = await post(session, 'Profiler.stop');
        session.disconnect();
        writeFileSync(opts.profile, JSON.stringify(profile));
        summarizeProfile(profile, opts.top);
      }
    }
  } finally {
    if (agents) await agents.stop();
    await flex.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
