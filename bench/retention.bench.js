'use strict';
// Retention (issue 17 point 5, docs/AUDIT.md § Retention): what it costs.
// 1. Appends with and without the trigger that refuses an append to an archived stream (a lookup in
//    run_archives per inserted event), alternating rounds so a loaded machine's noise hits both.
// 2. The same, the database's share alone: one insert of 100,000 events, with and without it.
// 3. A retention cycle: finished runs archived per second (written, read back, verified, deleted),
//    and the archive's bytes per event against the events table's.
// Needs Postgres (FLEX_BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres: a
// scratch database is created and dropped) and the built packages (`npm run build`).
// `node bench/retention.bench.js [--runs 300] [--rounds 4]`
const { join } = require('node:path');
const { mkdtempSync, rmSync, readdirSync, statSync } = require('node:fs');
const { tmpdir, cpus, loadavg } = require('node:os');
const { randomUUID } = require('node:crypto');
const { Client } = require('pg');
const { sql } = require('kysely');

const ROOT = join(__dirname, '..');
const store = require(join(ROOT, 'libs/event-store/dist/index.js'));
const { runRetentionCycle } = require(join(ROOT, 'libs/runtime/dist/index.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const RUNS = arg('runs', 300);
const ROUNDS = arg('rounds', 4);
const EVENTS_PER_RUN = 12;
const DAY = 86_400_000;

function runEvents(streamId, finishedAt) {
  return Array.from({ length: EVENTS_PER_RUN }, (_, i) => ({
    id: randomUUID(),
    type: i === EVENTS_PER_RUN - 1 ? 'complete' : i === 0 ? 'start' : 'node_complete',
    payload: { nodeId: `n${i}`, output: { text: `output ${i} `.repeat(20), score: i / 10 } },
    metadata: { correlationId: streamId, causationId: randomUUID(), producer: 'bench', actor: 'bench' },
    timestamp: new Date(finishedAt - (EVENTS_PER_RUN - i) * 1000).toISOString(),
  }));
}

/** Appends `RUNS` runs, 8 writers at once; events per second. */
async function appendRuns(events, finishedAt) {
  const started = performance.now();
  let next = 0;
  const writer = async () => {
    while (next < RUNS) {
      next++;
      const streamId = `run-${randomUUID()}`;
      await events.append(streamId, runEvents(streamId, finishedAt), { expectedVersion: 'no_stream' });
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
  return (RUNS * EVENTS_PER_RUN) / ((performance.now() - started) / 1000);
}

const BULK = 100_000;

/** One insert statement of BULK events straight into the table (the database's share only); ms. */
async function bulkInsert(database, round, guard) {
  const prefix = `bulk-${round}-${guard}-`;
  const started = performance.now();
  await sql`insert into events (id, stream_id, version, type, payload, metadata)
    select gen_random_uuid(), ${prefix} || (g / 12), g % 12 + 1, 'bulk', '{}', '{"correlationId":"b"}'
    from generate_series(0, ${BULK - 1}) g`.execute(database.db);
  return performance.now() - started;
}

async function main() {
  const server = process.env.FLEX_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `flex_retention_bench_${Date.now()}`;
  const admin = new Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const database = await store.createDatabase({ url: url.toString(), poolSize: 10 });
  const dir = mkdtempSync(join(tmpdir(), 'flex-retention-bench-'));
  try {
    await store.migrateToLatest(database.db);
    const events = new store.EventStore(database.db);
    const now = Date.now();
    await sql`insert into run_archives (stream_id, run_id, last_version, last_position, event_count, head_hash,
      location, summary, finished_at) select 'run-archived-' || g, g::text, 1, 1, 1, '', '', '{}', now()
      from generate_series(1, ${RUNS}) g`.execute(database.db);
    const rates = { on: [], off: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const guard of round % 2 ? ['off', 'on'] : ['on', 'off']) {
        const toggle = guard === 'on' ? 'enable' : 'disable';
        await sql.raw(`alter table events ${toggle} trigger events_not_archived`).execute(database.db);
        rates[guard].push(await appendRuns(events, now - 40 * DAY));
      }
    await sql`alter table events enable trigger events_not_archived`.execute(database.db);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const stored =
      await sql`select count(*)::int as n, pg_total_relation_size('events') as bytes from events`.execute(
        database.db,
      );
    const { n, bytes } = stored.rows[0];
    const archives = new store.DirectoryArchiveStore(dir);
    const started = performance.now();
    const options = { settings: { ageMs: 30 * DAY, batch: 100_000 }, archives, now: new Date(now) };
    const report = await runRetentionCycle(database, options);
    const seconds = (performance.now() - started) / 1000;
    const archived = report.outcomes.filter((o) => o.status === 'archived').length;
    const archiveBytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    const bulk = { on: [], off: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const guard of round % 2 ? ['off', 'on'] : ['on', 'off']) {
        const toggle = guard === 'on' ? 'enable' : 'disable';
        await sql.raw(`alter table events ${toggle} trigger events_not_archived`).execute(database.db);
        bulk[guard].push(await bulkInsert(database, round, guard));
      }
    await sql`alter table events enable trigger events_not_archived`.execute(database.db);
    const load = loadavg()[0].toFixed(1);
    console.log(
      `machine: ${cpus().length} cores, load average ${load}; ${RUNS} runs of ${EVENTS_PER_RUN} events`,
    );
    console.log(
      `appends, guard trigger on:  ${rates.on.map((r) => r.toFixed(0)).join(' ')} events/s (median ${median(rates.on).toFixed(0)})`,
    );
    console.log(
      `appends, guard trigger off: ${rates.off.map((r) => r.toFixed(0)).join(' ')} events/s (median ${median(rates.off).toFixed(0)})`,
    );
    const perEvent = ((median(bulk.on) - median(bulk.off)) * 1000) / BULK;
    console.log(
      `database alone, ${BULK} events in one insert: guard on ${bulk.on.map((ms) => ms.toFixed(0)).join(' ')} ms, ` +
        `off ${bulk.off.map((ms) => ms.toFixed(0)).join(' ')} ms: the guard costs ${perEvent.toFixed(1)} µs per event (medians)`,
    );
    console.log(
      `retention cycle: ${archived} runs (${archived * EVENTS_PER_RUN} events) archived in ${seconds.toFixed(1)} s: ` +
        `${(archived / seconds).toFixed(0)} runs/s, ${((archived * EVENTS_PER_RUN) / seconds).toFixed(0)} events/s; failed ${report.failed.length}`,
    );
    console.log(
      `bytes per event: events table ${(Number(bytes) / n).toFixed(0)} (with indexes), archive ${(archiveBytes / (archived * EVENTS_PER_RUN)).toFixed(0)} (gzip NDJSON)`,
    );
  } finally {
    await database.close();
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
