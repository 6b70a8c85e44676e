'use strict';
// The event store against the raw limit, on a database of its own:
// - append: 50 runs at once, each appending a real run's events (the echo plan's, recorded from
//   Flex distributed, under fresh run ids) one by one as its handlers do (store.append with the
//   expected version), with the store as distributed mode configures it (outbox row written and
//   cleared) and as embedded mode does (no outbox);
// - raw: the same rows as plain pg multi-row INSERTs of 100 rows, one connection, into a copy of the
//   events table (same columns, defaults, indexes and compression: `including all`);
// - rebuild: the runs read model rebuilt from the whole log (ProjectionRunner.rebuild);
// - raw read: the log read in pages of 500 by position with plain pg.
// The machine is shared, so each side and its raw limit take turns: the appends (outbox on, off) and
// the raw insert alternate in chunks, each side's rate being its rows over its summed time; rebuild
// passes alternate with raw read passes, and the rebuild's ratio is the median of each pass's ratio
// to the read next to it. Both sides of a ratio then see the same load.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { Client } = require('pg');
const { runFlex } = require('../lib/flex-http');
const { closedLoop, median, percentile, spread } = require('../lib/load');
const { createMeter } = require('../lib/proc');
const { BODIES } = require('../lib/systems');
const { eventsFor, insertRaw, rawRows, rebuildPasses } = require('../lib/store-rows');

const ROOT = join(__dirname, '..', '..');
const WRITERS = 50;

/** One finished echo run's stored events (type, payload, metadata as JSON text), in order. */
async function recordTemplate(ctx) {
  const { flex, db } = await ctx.distributed();
  await flex.useAgents('echo');
  const { runId } = await runFlex(flex.url, BODIES.echo);
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const { rows } = await client.query(
      'select type, payload::text as payload, metadata::text as metadata from events where stream_id = $1 order by version',
      [`run-${runId}`],
    );
    return { runId, events: rows };
  } finally {
    await client.end();
  }
}

/** One chunk of appends: `runs` runs, `WRITERS` at once; its events, seconds, CPU and latencies. */
async function appendChunk(ctx, store, template, runs, label, database) {
  const latencies = [];
  // Each run's events are made before the clock starts, as the raw insert makes its rows before its
  // clock: either side times its writes, not the bench's copying of the template.
  const prepared = Array.from({ length: runs }, (_, i) => {
    const runId = `run_bench_${label}_${i}`;
    return { streamId: `run-${runId}`, events: eventsFor(template, runId) };
  });
  let next = 0;
  const meter = createMeter({ pids: () => [process.pid], admin: ctx.infra.admin, database });
  await meter.start();
  const loaded = await closedLoop({
    concurrency: WRITERS,
    runs,
    runOnce: async () => {
      const { streamId, events } = prepared[next++];
      for (const [version, event] of events.entries()) {
        const t = performance.now();
        await store.append(streamId, [event], { expectedVersion: version });
        latencies.push(performance.now() - t);
      }
    },
  });
  const used = await meter.stop();
  if (loaded.errors.length) throw new Error(`appends failed: ${loaded.errors[0]}`);
  return {
    events: latencies.length,
    seconds: loaded.wallMs / 1000,
    cpuSeconds: used.cpuSeconds.total,
    latencies,
  };
}

/** The chunks of one side summed: events/s over the summed time, latency percentiles, CPU per event. */
function appendSummary(chunks) {
  const latencies = chunks.flatMap((c) => c.latencies).sort((a, b) => a - b);
  const seconds = chunks.reduce((sum, c) => sum + c.seconds, 0);
  const cpuSeconds = chunks.reduce((sum, c) => sum + c.cpuSeconds, 0);
  return {
    events: latencies.length,
    seconds,
    eventsPerSec: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    cpuUsPerEvent: (cpuSeconds * 1e6) / latencies.length,
  };
}

/**
 * Appends (outbox on, then off) and raw inserts of as many rows, alternated `chunks` times, each
 * chunk `runs` runs. The order within a chunk turns, so no side always follows the same one.
 */
async function measureWrites(ctx, stores, template, { chunks, runs }, target, client) {
  const sides = { append: [], appendPlain: [], raw: [] };
  let rawBatches = 0;
  const steps = {
    append: async (k) =>
      sides.append.push(await appendChunk(ctx, stores.outbox, template, runs, `o${k}`, target.name)),
    appendPlain: async (k) =>
      sides.appendPlain.push(await appendChunk(ctx, stores.plain, template, runs, `p${k}`, target.name)),
    raw: async (k) => {
      const rows = rawRows(template, runs * template.events.length, `raw${k}`);
      const { batches, seconds } = await insertRaw(client, rows);
      rawBatches += batches;
      sides.raw.push({ rows: rows.length, seconds });
    },
  };
  const orders = [
    ['append', 'raw', 'appendPlain'],
    ['raw', 'appendPlain', 'append'],
    ['appendPlain', 'append', 'raw'],
  ];
  for (let k = 0; k < chunks; k++) for (const step of orders[k % orders.length]) await steps[step](k);
  const rawTotal = sides.raw.reduce((sum, c) => sum + c.rows, 0);
  const rawSeconds = sides.raw.reduce((sum, c) => sum + c.seconds, 0);
  const chunkRatios = sides.append.map(
    (c, k) => c.events / c.seconds / (sides.raw[k].rows / sides.raw[k].seconds),
  );
  return {
    append: appendSummary(sides.append),
    appendPlain: appendSummary(sides.appendPlain),
    raw: { rows: rawTotal, batches: rawBatches, rowsPerSec: rawTotal / rawSeconds },
    chunkRatios: spread(chunkRatios),
  };
}

/** Rebuild passes alternated with raw read passes (`passes` each): medians, ranges, paired ratios. */
async function measureRebuilds(runner, client, passes) {
  const { rebuilds, reads, ratios: paired } = await rebuildPasses(runner, client, passes);
  const rebuildRates = spread(rebuilds.map((r) => r.events / r.seconds));
  const readRates = spread(reads.map((r) => r.rows / r.seconds));
  const ratios = spread(paired);
  return {
    rebuild: {
      events: rebuilds[0].events,
      seconds: median(rebuilds.map((r) => r.seconds)),
      eventsPerSec: rebuildRates.median,
      range: [rebuildRates.min, rebuildRates.max],
      passes,
    },
    rawRead: {
      rows: reads[0].rows,
      rowsPerSec: readRates.median,
      range: [readRates.min, readRates.max],
      passes,
    },
    ratios,
  };
}

async function run(ctx) {
  const es = require(join(ROOT, 'libs/event-store/dist'));
  const rm = require(join(ROOT, 'libs/read-models/dist'));
  const template = await recordTemplate(ctx);
  // The recorded run, for bench/append-ab.js (A/B of the append bar between builds).
  if (process.env.FLEX_STORE_TEMPLATE)
    writeFileSync(process.env.FLEX_STORE_TEMPLATE, JSON.stringify(template));
  const shape = ctx.quick ? { chunks: 3, runs: 50 } : { chunks: 10, runs: 200 };
  const passes = ctx.quick ? 5 : 7;
  const target = await ctx.infra.createDatabase('store');
  const database = await es.createDatabase({ url: target.url, poolSize: 10 });
  const client = new Client({ connectionString: target.url });
  try {
    await es.migrateToLatest(database.db, rm.readModelMigrations);
    await client.connect();
    await client.query('create table raw_events (like events including all)');
    const stores = {
      plain: new es.EventStore(database.db),
      outbox: new es.EventStore(database.db, { outbox: true, afterCommit: () => undefined }),
    };
    await appendChunk(ctx, stores.plain, template, ctx.quick ? 10 : WRITERS, 'warmup', target.name);
    const writes = await measureWrites(ctx, stores, template, shape, target, client);
    const { append, appendPlain, raw } = writes;
    const rate = (v) => v.toFixed(0);
    ctx.log(
      `store: ${shape.chunks} alternations of ${shape.runs} runs: append ${rate(append.eventsPerSec)} ` +
        `events/s (no outbox ${rate(appendPlain.eventsPerSec)}), raw insert ${rate(raw.rowsPerSec)} rows/s`,
    );
    const runner = new es.ProjectionRunner(database.db, stores.plain, [rm.createRunsProjection()], {
      batchSize: 500,
    });
    const reads = await measureRebuilds(runner, client, passes);
    const { rebuild, rawRead: read } = reads;
    ctx.log(
      `store: ${passes} alternations: rebuild ${rate(rebuild.eventsPerSec)} events/s, ` +
        `raw read ${rate(read.rowsPerSec)} rows/s (medians)`,
    );
    return {
      writers: WRITERS,
      runs: shape.chunks * shape.runs,
      chunks: shape.chunks,
      eventsPerRun: template.events.length,
      append,
      appendPlain,
      raw,
      rebuild,
      rawRead: read,
      ratios: {
        append: append.eventsPerSec / raw.rowsPerSec,
        appendPlain: appendPlain.eventsPerSec / raw.rowsPerSec,
        rebuild: reads.ratios.median,
      },
      ranges: {
        appendPerChunk: [writes.chunkRatios.min, writes.chunkRatios.max],
        rebuildPerPass: [reads.ratios.min, reads.ratios.max],
      },
    };
  } finally {
    await client.end().catch(() => undefined);
    await database.close();
  }
}

module.exports = {
  name: 'store',
  title: 'The event store against the raw limit',
  needs: ['distributed'],
  run,
};
