'use strict';
// The event store against the raw limit, on a database of its own:
// - append: 50 runs at once, each appending a real run's events (the echo plan's, recorded from
//   Flex distributed, under fresh run ids) one by one as its handlers do (store.append with the
//   expected version), with the store as distributed mode configures it (outbox row written and
//   cleared) and as embedded mode does (no outbox);
// - raw: the same rows as plain pg multi-row INSERTs of 100 rows, one connection, into a copy of the
//   events table (same columns, defaults, indexes and compression: `including all`);
// - rebuild: the runs read model rebuilt from the whole log (ProjectionRunner.rebuild);
// - raw read: the log read in pages of 500 by position with plain pg, best of two passes.
const { randomUUID } = require('node:crypto');
const { join } = require('node:path');
const { Client } = require('pg');
const { runFlex } = require('../lib/flex-http');
const { closedLoop, percentile } = require('../lib/load');
const { createMeter } = require('../lib/proc');
const { BODIES } = require('../lib/systems');

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

/** The template's events for a new run: every mention of the old run id replaced, fresh event ids. */
function eventsFor(template, runId) {
  const swap = (text) => JSON.parse(text.split(template.runId).join(runId));
  return template.events.map((e) => ({
    id: randomUUID(),
    type: e.type,
    payload: swap(e.payload),
    metadata: swap(e.metadata),
  }));
}

async function measureAppends(ctx, store, template, runs, label, database) {
  const perAppend = [];
  let next = 0;
  const meter = createMeter({ pids: () => [process.pid], admin: ctx.infra.admin, database });
  await meter.start();
  const loaded = await closedLoop({
    concurrency: WRITERS,
    runs,
    runOnce: async () => {
      const runId = `run_bench_${label}_${next++}`;
      const streamId = `run-${runId}`;
      const events = eventsFor(template, runId);
      for (const [version, event] of events.entries()) {
        const t = performance.now();
        await store.append(streamId, [event], { expectedVersion: version });
        perAppend.push(performance.now() - t);
      }
    },
  });
  const used = await meter.stop();
  if (loaded.errors.length) throw new Error(`appends failed: ${loaded.errors[0]}`);
  perAppend.sort((a, b) => a - b);
  const events = perAppend.length;
  return {
    events,
    eventsPerSec: events / (loaded.wallMs / 1000),
    p50Ms: percentile(perAppend, 0.5),
    p99Ms: percentile(perAppend, 0.99),
    cpuUsPerEvent: (used.cpuSeconds.total * 1e6) / events,
  };
}

async function rawInsert(url, template, rows) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      'create table raw_events (like events including all)',
    );
    const all = [];
    for (let run = 0; all.length < rows; run++) {
      const runId = `run_bench_raw_${run}`;
      for (const [i, e] of eventsFor(template, runId).entries())
        all.push([
          e.id,
          `run-${runId}`,
          i + 1,
          e.type,
          JSON.stringify(e.payload),
          JSON.stringify(e.metadata),
        ]);
    }
    all.length = rows;
    const t0 = performance.now();
    let batches = 0;
    for (let at = 0; at < all.length; at += 100) {
      const batch = all.slice(at, at + 100);
      const values = batch.map(
        (_, i) =>
          `($${6 * i + 1}, $${6 * i + 2}, $${6 * i + 3}, $${6 * i + 4}, $${6 * i + 5}::jsonb, $${6 * i + 6}::jsonb)`,
      );
      await client.query(
        `insert into raw_events (id, stream_id, version, type, payload, metadata) values ${values.join(', ')}`,
        batch.flat(),
      );
      batches++;
    }
    const seconds = (performance.now() - t0) / 1000;
    return { rows, batches, rowsPerSec: rows / seconds };
  } finally {
    await client.end();
  }
}

async function rawRead(url) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const t0 = performance.now();
    let rows = 0;
    for (let after = 0; ;) {
      const page = await client.query(
        'select position, id, stream_id, version, type, payload, metadata, recorded_at from events where position > $1 order by position limit 500',
        [after],
      );
      if (page.rows.length === 0) break;
      rows += page.rows.length;
      after = page.rows[page.rows.length - 1].position;
    }
    return { rows, rowsPerSec: rows / ((performance.now() - t0) / 1000) };
  } finally {
    await client.end();
  }
}

async function run(ctx) {
  const es = require(join(ROOT, 'libs/event-store/dist'));
  const rm = require(join(ROOT, 'libs/read-models/dist'));
  const template = await recordTemplate(ctx);
  const runs = ctx.quick ? 100 : 2000;
  const target = await ctx.infra.createDatabase('store');
  const database = await es.createDatabase({ url: target.url, poolSize: 10 });
  try {
    await es.migrateToLatest(database.db, rm.readModelMigrations);
    const plain = new es.EventStore(database.db);
    const withOutbox = new es.EventStore(database.db, { outbox: true, afterCommit: () => undefined });
    await measureAppends(ctx, plain, template, ctx.quick ? 10 : WRITERS, 'warmup', target.name);
    const appendPlain = await measureAppends(ctx, plain, template, runs, 'plain', target.name);
    ctx.log(`store: append, no outbox: ${appendPlain.eventsPerSec.toFixed(0)} events/s`);
    const append = await measureAppends(ctx, withOutbox, template, runs, 'outbox', target.name);
    ctx.log(`store: append, outbox: ${append.eventsPerSec.toFixed(0)} events/s`);
    const raw = await rawInsert(target.url, template, append.events);
    ctx.log(`store: raw insert: ${raw.rowsPerSec.toFixed(0)} rows/s`);
    const read1 = await rawRead(target.url);
    const runner = new es.ProjectionRunner(database.db, plain, [rm.createRunsProjection()], {
      batchSize: 500,
    });
    const t0 = performance.now();
    const rebuilt = await runner.rebuild('runs');
    const seconds = (performance.now() - t0) / 1000;
    const read2 = await rawRead(target.url);
    const rawReadBest = read1.rowsPerSec >= read2.rowsPerSec ? read1 : read2;
    const rebuild = { events: rebuilt, seconds, eventsPerSec: rebuilt / seconds };
    ctx.log(
      `store: rebuild ${rebuild.eventsPerSec.toFixed(0)} events/s, raw read ${rawReadBest.rowsPerSec.toFixed(0)} rows/s`,
    );
    return {
      writers: WRITERS,
      runs,
      eventsPerRun: template.events.length,
      append,
      appendPlain,
      raw,
      rebuild,
      rawRead: { ...rawReadBest, passes: 2 },
      ratios: {
        append: append.eventsPerSec / raw.rowsPerSec,
        appendPlain: appendPlain.eventsPerSec / raw.rowsPerSec,
        rebuild: rebuild.eventsPerSec / rawReadBest.rowsPerSec,
      },
    };
  } finally {
    await database.close();
  }
}

module.exports = {
  name: 'store',
  title: 'The event store against the raw limit',
  needs: ['distributed'],
  run,
};
