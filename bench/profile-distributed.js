#!/usr/bin/env node
'use strict';
// Profiling driver for distributed Flex (issue 13, point 2): a throwaway Postgres with durability
// on (fsync, synchronous_commit, full_page_writes), a NATS JetStream server, the five service
// processes and the reference agents; fires examples/envelope.json sequentially and then
// `--concurrency` at a time, and prints runs/s, latency and the CPU-seconds each process spent.
//
//   node bench/profile-distributed.js [--runs 60] [--seq-runs 15] [--concurrency 20] [--repeat 1]
//                                     [--profile <dir>]   (each service writes a .cpuprofile there)
//                                     [--queries]   (Postgres statements per run by service and by text,
//                                                    from the server's log, during the concurrent phase)
require('reflect-metadata');
const { spawnSync } = require('node:child_process');
const { readFileSync, readdirSync, statSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { Client } = require('pg');

const ROOT = join(__dirname, '..');
const TOKEN = 'bench-client-token';
const SERVICES = ['registry', 'planner', 'validator', 'executor', 'gateway'];
const TICK = 100; // USER_HZ: /proc/<pid>/stat counts CPU in 1/100 s

function args() {
  const out = { runs: 60, seqRuns: 15, concurrency: 20, repeat: 1 };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') out.runs = Number(argv[++i]);
    else if (a === '--seq-runs') out.seqRuns = Number(argv[++i]);
    else if (a === '--concurrency') out.concurrency = Number(argv[++i]);
    else if (a === '--repeat') out.repeat = Number(argv[++i]);
    else if (a === '--profile') out.profile = argv[++i];
    else if (a === '--queries') out.queries = true;
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

/**
 * CPU ticks (user + system) of a process, 0 when gone; with `reaped`, also those of its children that
 * exited and were waited for (a Postgres backend closed by an idle pool: else its whole lifetime's CPU
 * would drop out of the sum when it exits mid-phase).
 */
function ticks(pid, reaped = false) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const own = Number(fields[11]) + Number(fields[12]);
    return reaped ? own + Number(fields[13]) + Number(fields[14]) : own;
  } catch {
    return 0;
  }
}

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Every live descendant of `root` (postgres backends under the postmaster). */
function descendants(root) {
  const pids = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  const out = [];
  const frontier = [root];
  while (frontier.length) {
    const p = frontier.pop();
    for (const c of pids) if (parentOf(c) === p) (out.push(c), frontier.push(c));
  }
  return out;
}

function cpuSnapshot(groups) {
  const snap = {};
  for (const [name, pids] of Object.entries(groups))
    snap[name] = pids().reduce((n, pid, i) => n + ticks(pid, name === 'postgres' && i === 0), 0);
  return snap;
}

async function phase(label, groups, runs, fn) {
  const before = cpuSnapshot(groups);
  const t0 = performance.now();
  const lat = await fn();
  const secs = (performance.now() - t0) / 1000;
  const after = cpuSnapshot(groups);
  const cpu = Object.fromEntries(Object.keys(groups).map((k) => [k, (after[k] - before[k]) / TICK]));
  const total = Object.values(cpu).reduce((a, b) => a + b, 0);
  const f = (x) => x.toFixed(1);
  console.log(
    `${label}: ${f(runs / secs)} runs/s (p50 ${f(median(lat))} ms, p99 ${f(pct(lat, 0.99))} ms), ` +
      `${f((1000 * total) / runs)} CPU-ms/run: ` +
      Object.entries(cpu)
        .map(([k, v]) => `${k} ${f((1000 * v) / runs)}`)
        .join(', '),
  );
  return runs / secs;
}

/**
 * NATS messages per run during the measured phase, from the server's monitoring port (`/connz`): in
 * (sent by a client) and out (delivered to it), by the process that holds each connection.
 */
function natsCensus(base, procs) {
  const read = async () => {
    const res = await fetch(`${base}/connz?limit=1000`);
    const { connections = [] } = await res.json();
    const by = new Map();
    const pidOfPort = new Map();
    const ss = spawnSync('ss', ['-tnpH'], { encoding: 'utf8' }).stdout ?? '';
    for (const m of ss.matchAll(/127\.0\.0\.1:(\d+)\s+\S+\s+users:\(\("[^"]*",pid=(\d+)/g))
      pidOfPort.set(Number(m[1]), Number(m[2]));
    for (const c of connections) {
      const proc = procs.find((p) => p.child.pid === pidOfPort.get(c.port));
      const name = proc?.name ?? 'other';
      const [i, o] = by.get(name) ?? [0, 0];
      by.set(name, [i + c.in_msgs, o + c.out_msgs]);
    }
    return by;
  };
  let before;
  return {
    async start() {
      before = await read();
    },
    async report(runs) {
      const after = await read();
      const rows = [...after].map(([name, [i, o]]) => {
        const [i0, o0] = before.get(name) ?? [0, 0];
        return [name, (i - i0) / runs, (o - o0) / runs];
      });
      const sum = rows.reduce((n, [, i, o]) => n + i + o, 0);
      const f = (n) => n.toFixed(1);
      console.log(
        `\nNATS messages: ${f(sum)} per run (sent/delivered): ` +
          rows.map(([name, i, o]) => `${name} ${f(i)}/${f(o)}`).join(', '),
      );
    },
  };
}

/**
 * Statements per run by service (each connects as `PGAPPNAME=flex-<service>`) and by text, from the
 * throwaway server's log (`server.log` next to its data directory) with `log_statement = all` on
 * during the measured phase only. An extended-protocol query logs one `execute` line. Then the
 * statements the server spent most execution time on (pg_stat_statements, preloaded by a restart).
 */
function censusStatements(url, db) {
  let log;
  let from = 0;
  const set = async (value) => {
    const c = new Client({ connectionString: url, application_name: 'census' });
    await c.connect();
    await c.query(`alter system set log_statement = '${value}'`);
    await c.query(`alter system set log_line_prefix = '%a|'`);
    await c.query('select pg_reload_conf()');
    log ??= join(dirname((await c.query('show data_directory')).rows[0].data_directory), 'server.log');
    await c.end();
  };
  return {
    async start() {
      await set('all');
      from = statSync(log).size;
      const c = new Client({ connectionString: db, application_name: 'census' });
      await c.connect();
      await c.query('create extension if not exists pg_stat_statements');
      await c.query('select pg_stat_statements_reset()');
      await c.end();
    },
    async report(runs) {
      await set('none');
      const text = readFileSync(log, 'utf8').slice(from);
      const byApp = new Map();
      const byText = new Map();
      const re = /^([^|\n]*)\|LOG:\s+(?:statement|execute [^:]*): (.*(?:\n\t.*)*)$/gm;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const app = m[1] || '(none)';
        if (app === 'census') continue;
        byApp.set(app, (byApp.get(app) ?? 0) + 1);
        const key = `${app.replace('flex-', '').padEnd(9)} ${m[2].replace(/\s+/g, ' ').trim().slice(0, 110)}`;
        byText.set(key, (byText.get(key) ?? 0) + 1);
      }
      const total = [...byApp.values()].reduce((a, b) => a + b, 0);
      const f = (n) => (n / runs).toFixed(1);
      console.log(
        `\nstatements: ${f(total)} per run: ` + [...byApp].map(([a, n]) => `${a} ${f(n)}`).join(', '),
      );
      for (const [k, n] of [...byText].sort((a, b) => b[1] - a[1]).slice(0, 30))
        console.log(`  ${f(n).padStart(6)}/run  ${k}`);
      const c = new Client({ connectionString: db, application_name: 'census' });
      await c.connect();
      const stats = await c.query(
        `select calls, total_exec_time as ms, rows, query from pg_stat_statements
         where dbid = (select oid from pg_database where datname = current_database())
         order by total_exec_time desc limit 15`,
      );
      await c.end();
      const ms = stats.rows.reduce((n, r) => n + r.ms, 0);
      console.log(`server execution time (pg_stat_statements, top 15): ${(ms / runs).toFixed(2)} ms per run`);
      for (const r of stats.rows)
        console.log(
          `  ${(r.ms / runs).toFixed(2).padStart(6)} ms/run ${(r.ms / r.calls).toFixed(3).padStart(7)} ms/call ` +
            `${f(r.calls).padStart(6)}/run  ${r.query.replace(/\s+/g, ' ').trim().slice(0, 90)}`,
        );
    },
  };
}

/** A service under bench/cpu-profiled.js (startNodeProcess runs one script with no arguments). */
function startProfiled(t, name, main, env) {
  const { spawn } = require('node:child_process');
  const child = spawn(process.execPath, [join(__dirname, 'cpu-profiled.js'), main], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  return {
    name,
    child,
    output: () => out,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

async function main() {
  const opts = args();
  const body = readFileSync(join(ROOT, 'examples/envelope.json'), 'utf8');
  const t = {
    ...require(join(ROOT, 'libs/testing/dist')),
    ...require(join(ROOT, 'libs/testing/dist/postgres-server')),
  };
  const stops = [];
  const procs = [];
  try {
    const pg = await t.startPostgres();
    stops.push(pg.stop);
    // The test server runs without durability; the bench measures with it.
    const admin = new Client({ connectionString: pg.url });
    await admin.connect();
    for (const setting of ['fsync = on', 'synchronous_commit = on', 'full_page_writes = on'])
      await admin.query(`alter system set ${setting}`);
    if (opts.queries) await admin.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
    await admin.query('select pg_reload_conf()');
    await admin.end();
    if (opts.queries) {
      // The library loads only at start: a restart (a crash stop, then a start) with it preloaded.
      await pg.crash();
      await pg.revive();
    }
    const admin2 = new Client({ connectionString: pg.url });
    await admin2.connect();
    const { rows } = await admin2.query('select pg_backend_pid() as pid');
    const postmaster = parentOf(rows[0].pid);
    await admin2.end();
    // With --queries, NATS's monitoring port too: messages per run by connection (natsCensus).
    const monitor = opts.queries ? await t.freePort() : undefined;
    const nats = await t.startNats(monitor ? { config: `http: "127.0.0.1:${monitor}"` } : {});
    stops.push(nats.stop);
    process.env.FLEX_TEST_DATABASE_URL = pg.url;
    const db = await t.createTestDatabase('bench');
    const env = {
      FLEX_DATABASE_URL: db.url,
      FLEX_NATS_URL: nats.url,
      FLEX_NATS_PREFIX: t.testPrefix('bench'),
      FLEX_LOG_LEVEL: 'error',
      FLEX_API_TOKENS: `${TOKEN}:client`,
      FLEX_LIMIT_RUNS_PER_TOKEN: '1000',
      FLEX_LIMIT_STREAMS_PER_TOKEN: '1000',
      FLEX_LIMIT_CONNECTIONS_PER_TOKEN: '1000',
      FLEX_LIMIT_REQUESTS_PER_SECOND: '100000',
      FLEX_LIMIT_REQUEST_BURST: '100000',
      ...(opts.profile ? { FLEX_CPU_PROFILE_DIR: opts.profile } : {}),
    };
    let gateway;
    for (const name of SERVICES) {
      const port = await t.freePort();
      const appName = { PGAPPNAME: `flex-${name}` };
      if (name === 'gateway') gateway = `http://127.0.0.1:${port}`;
      const main = join(ROOT, `services/${name}/dist/main.js`);
      const script = opts.profile ? join(__dirname, 'cpu-profiled.js') : main;
      const proc = opts.profile
        ? startProfiled(t, name, main, { ...env, ...appName, PORT: String(port) })
        : t.startNodeProcess(name, script, { ...env, ...appName, PORT: String(port) }, ROOT);
      procs.push(proc);
      await t.waitForHttp(`http://127.0.0.1:${port}/healthz`, 60000, () => proc.output());
    }
    procs.push(t.startNodeProcess('agents', join(ROOT, 'agents/reference/dist/main.js'), env, ROOT));
    await t.waitFor(async () => {
      const res = await fetch(`${gateway}/api/v1/flex/capabilities`, {
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      const listed = await res.json();
      return (listed.capabilities ?? []).filter((c) => c.status === 'active').length >= 3;
    }, 60000);
    const groups = {
      ...Object.fromEntries(procs.map((p) => [p.name, () => [p.child.pid]])),
      postgres: () => [postmaster, ...descendants(postmaster)],
      nats: () => descendants(process.pid).filter((pid) => !procs.some((p) => p.child.pid === pid)),
      driver: () => [process.pid],
    };
    const census = opts.queries ? censusStatements(pg.url, db.url) : undefined;
    const messages = monitor ? natsCensus(`http://127.0.0.1:${monitor}`, procs) : undefined;
    for (let i = 0; i < 3; i++) await timeRun(gateway, body);
    for (let r = 0; r < opts.repeat; r++) {
      const seq = await phase('sequential', groups, opts.seqRuns, async () => {
        const lat = [];
        for (let i = 0; i < opts.seqRuns; i++) lat.push(await timeRun(gateway, body));
        return lat;
      });
      await census?.start();
      await messages?.start();
      const con = await phase(`${opts.concurrency} concurrent`, groups, opts.runs, async () => {
        const lat = [];
        let next = 0;
        const worker = async () => {
          while (next < opts.runs) {
            next++;
            lat.push(await timeRun(gateway, body));
          }
        };
        await Promise.all(Array.from({ length: opts.concurrency }, worker));
        return lat;
      });
      await messages?.report(opts.runs);
      await census?.report(opts.runs);
      console.log(`ratio ${(con / seq).toFixed(2)}`);
    }
  } finally {
    await Promise.all(procs.map((p) => p.kill('SIGTERM')));
    for (const stop of stops.reverse()) await stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
