#!/usr/bin/env node
'use strict';
// The store section's append bar, for A/B between builds (issue 13, round 6): 50 writers append a
// recorded run's events one by one with the expected version through store.append (outbox on, as
// distributed mode), against a raw 100-row INSERT of the same rows into a copy of the events table,
// on a fresh database. Events are made before either clock starts. With --chunks K, the two sides
// alternate K times (--runs runs of appends, then as many raw rows), and each side's rate is its
// rows over its summed time: on a shared machine, both sides then see the same load.
//
//   FLEX_STORE_TEMPLATE=/tmp/template.json node bench/run.js --quick --no-docs store   (records one)
//   node bench/append-ab.js --root <worktree> --template /tmp/template.json [--runs 100] [--chunks 8]
//
// Prints one JSON line: events/s, raw rows/s, the ratio, and CPU µs per event of this process
// (client) and of the database's backends (pg). Postgres: FLEX_BENCH_DATABASE_URL or the local server.
const { abArgs, readTemplate, withAbDatabase } = require('./lib/ab');
const { createMeter } = require('./lib/proc');
const { eventsFor, insertRaw, rawRows } = require('./lib/store-rows');

const WRITERS = 50;

async function appends(store, template, runs, label, meter) {
  const prepared = Array.from({ length: runs }, (_, i) => {
    const runId = `run_ab_${label}_${i}`;
    return { streamId: `run-${runId}`, events: eventsFor(template, runId) };
  });
  let next = 0;
  let events = 0;
  await meter.start();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const worker = async () => {
    while (next < runs) {
      const { streamId, events: run } = prepared[next++];
      for (const [version, event] of run.entries()) {
        await store.append(streamId, [event], { expectedVersion: version });
        events++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITERS, runs) }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  const { cpuSeconds } = await meter.stop();
  return { events, seconds, clientUs: used.user + used.system, pgUs: (cpuSeconds.db ?? 0) * 1e6 };
}

async function raw(client, template, rows, label) {
  return (await insertRaw(client, rawRows(template, rows, `raw_${label}`))).seconds;
}

async function main() {
  const options = abArgs({ runs: 100, chunks: 8 }, ['runs', 'chunks']);
  const template = readTemplate(options.template);
  const name = `flex_append_ab_${process.pid}`;
  await withAbDatabase(options.root, name, { durable: true }, async ({ es, database, client, admin }) => {
    await client.query('create table raw_events (like events including all)');
    const store = new es.EventStore(database.db, { outbox: true, afterCommit: () => undefined });
    const meter = createMeter({ pids: () => [process.pid], admin, database: name });
    await appends(store, template, 50, 'warmup', meter);
    const sum = { events: 0, appendSeconds: 0, rawSeconds: 0, clientUs: 0, pgUs: 0 };
    for (let k = 0; k < options.chunks; k++) {
      const a = await appends(store, template, options.runs, `c${k}`, meter);
      sum.events += a.events;
      sum.appendSeconds += a.seconds;
      sum.clientUs += a.clientUs;
      sum.pgUs += a.pgUs;
      sum.rawSeconds += await raw(client, template, a.events, `c${k}`);
    }
    await store.flushPublished();
    const [eventsPerSec, rawPerSec] = [sum.events / sum.appendSeconds, sum.events / sum.rawSeconds];
    const line = {
      root: options.root,
      events: sum.events,
      eventsPerSec: Math.round(eventsPerSec),
      rawRowsPerSec: Math.round(rawPerSec),
      ratio: Number((eventsPerSec / rawPerSec).toFixed(3)),
      clientUsPerEvent: Math.round(sum.clientUs / sum.events),
      pgUsPerEvent: Math.round(sum.pgUs / sum.events),
    };
    console.log(JSON.stringify(line));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
