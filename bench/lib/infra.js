'use strict';
// The servers every system is measured against, one database per system, and the machine's description.
const { join } = require('node:path');
const { readFileSync, readdirSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const os = require('node:os');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');

const ROOT = join(__dirname, '..', '..');
const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

async function canConnect(url) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The pid of a local process whose command line matches, e.g. the nats-server listening on a port. */
function findPid(matches) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (matches(argv)) return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

function natsPidOf(url) {
  const { hostname, port } = new URL(url);
  if (!['127.0.0.1', 'localhost'].includes(hostname)) return undefined;
  const wanted = port || '4222';
  return findPid((argv) => {
    if (!argv[0]?.endsWith('nats-server')) return false;
    const i = argv.findIndex((a) => a === '-p' || a === '--port');
    return (i >= 0 ? argv[i + 1] : '4222') === wanted;
  });
}

/**
 * Postgres: FLEX_BENCH_DATABASE_URL or FLEX_TEST_DATABASE_URL, else the local server on 5432 when
 * it answers, else a throwaway one (whose durability is off: the report says so). NATS:
 * FLEX_BENCH_NATS_URL or FLEX_TEST_NATS_URL, else a throwaway JetStream server (its CPU is counted).
 */
async function openInfra(log) {
  const testing = require(join(ROOT, 'libs/testing/dist'));
  const stops = [];
  let pgUrl = process.env.FLEX_BENCH_DATABASE_URL ?? process.env.FLEX_TEST_DATABASE_URL;
  let pgSource = 'from the environment';
  if (!pgUrl && (await canConnect(LOCAL_POSTGRES))) [pgUrl, pgSource] = [LOCAL_POSTGRES, 'local server'];
  if (!pgUrl) {
    const { startPostgres } = require(join(ROOT, 'libs/testing/dist/postgres-server'));
    log('starting a throwaway Postgres (durability off)');
    const pg = await startPostgres();
    stops.push(pg.stop);
    [pgUrl, pgSource] = [pg.url, 'throwaway (fsync and synchronous_commit off)'];
  }
  let natsUrl = process.env.FLEX_BENCH_NATS_URL ?? process.env.FLEX_TEST_NATS_URL;
  let natsSource = 'from the environment';
  if (!natsUrl) {
    const nats = await testing.startNats();
    stops.push(nats.stop);
    [natsUrl, natsSource] = [nats.url, 'throwaway JetStream server'];
  }
  const admin = new Client({ connectionString: pgUrl });
  await admin.connect();
  stops.push(() => admin.end());
  const databases = [];
  return {
    pgUrl,
    pgSource,
    natsUrl,
    natsSource,
    natsPid: natsPidOf(natsUrl),
    admin,
    /** A new database for one system, synchronous_commit on whatever the server default. */
    async createDatabase(label) {
      const name = `bench_${label}_${process.pid}_${randomBytes(3).toString('hex')}`;
      await admin.query(`create database "${name}"`);
      await admin.query(`alter database "${name}" set synchronous_commit = on`);
      const url = new URL(pgUrl);
      url.pathname = `/${name}`;
      const db = {
        name,
        url: url.toString(),
        drop: () => admin.query(`drop database if exists "${name}" with (force)`).then(() => undefined),
      };
      databases.push(db);
      return db;
    },
    async close() {
      for (const db of databases.splice(0)) await db.drop().catch(() => undefined);
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
}

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function git(args) {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/** What the figures were measured on. */
async function describeMachine(infra) {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = (cpuinfo.match(/^model name\s*:\s*(.+)$/m) ?? [])[1] ?? os.cpus()[0]?.model;
  const mhz = (cpuinfo.match(/^cpu MHz\s*:\s*(.+)$/m) ?? [])[1];
  const names = ['server_version', 'fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers'];
  const settings = await infra.admin.query(
    `select name, current_setting(name) as setting from unnest($1::text[]) as name`,
    [names],
  );
  const pg = Object.fromEntries(settings.rows.map((r) => [r.name, r.setting]));
  const { connect } = require('nats');
  const nc = await connect({ servers: infra.natsUrl, name: 'flex-bench-probe' });
  const natsVersion = nc.info?.version;
  await nc.close();
  return {
    date: new Date().toISOString(),
    cpu: `${model}${mhz ? ` @ ${Math.round(Number(mhz))} MHz` : ''}`,
    cores: os.availableParallelism?.() ?? os.cpus().length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: `${os.type()} ${os.release()}`,
    loadAverageAtStart: os.loadavg().map((x) => Math.round(x * 100) / 100),
    node: process.version,
    postgres: {
      version: pg.server_version,
      source: infra.pgSource,
      fsync: pg.fsync,
      synchronousCommit: `${pg.synchronous_commit} (each bench database: on)`,
      fullPageWrites: pg.full_page_writes,
      sharedBuffers: pg.shared_buffers,
    },
    nats: { version: natsVersion, source: infra.natsSource },
    peers: {
      '@langchain/langgraph': packageVersion('@langchain/langgraph'),
      '@langchain/langgraph-checkpoint-postgres': packageVersion('@langchain/langgraph-checkpoint-postgres'),
      '@dbos-inc/dbos-sdk': packageVersion('@dbos-inc/dbos-sdk'),
      '@electric-sql/pglite': packageVersion('@electric-sql/pglite'),
    },
    commit: `${git(['rev-parse', '--short', 'HEAD']) ?? '?'}${git(['status', '--porcelain', '--untracked-files=no']) ? ' (with local changes)' : ''}`,
  };
}

module.exports = { ROOT, openInfra, describeMachine, findPid };
