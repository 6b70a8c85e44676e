#!/usr/bin/env node
'use strict';
// The store section's rebuild bar, for A/B between builds (issue 13, round 7): a fresh database gets
// --runs runs of a recorded run's events (50 writers, as the section's appends leave the log), then
// --passes rebuilds of the runs read model (ProjectionRunner.rebuild) alternate with raw reads of the
// log in pages of 500 by position. Prints one JSON line: the medians and ranges of both rates, and of
// each rebuild's ratio to the read beside it. With --profile <file>, the last rebuild pass (only, V8
// warm by then) is CPU-profiled into it (read it with bench/cpuprofile-top.js).
//
//   FLEX_STORE_TEMPLATE=/tmp/template.json node bench/run.js --quick --no-docs store   (records one)
//   node bench/rebuild-ab.js --root <worktree> --template /tmp/template.json [--runs 4000] [--passes 7]
//
// Postgres: FLEX_BENCH_DATABASE_URL or the local server.
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { abArgs, readTemplate, withAbDatabase } = require('./lib/ab');
const { spread } = require('./lib/load');
const { eventsFor, rebuildPasses } = require('./lib/store-rows');

const WRITERS = 50;

async function fill(store, template, runs) {
  let next = 0;
  const worker = async () => {
    while (next < runs) {
      const runId = `run_rebuild_ab_${next++}`;
      for (const [version, event] of eventsFor(template, runId).entries())
        await store.append(`run-${runId}`, [event], { expectedVersion: version });
    }
  };
  await Promise.all(Array.from({ length: Math.min(WRITERS, runs) }, worker));
}

/** A CPU profile of what runs between start() and stop(), written to `file`; nothing without one. */
function profiler(file) {
  const session = file && new inspector.Session();
  const post = (method, params) =>
    new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
  return {
    async start() {
      if (!session) return;
      session.connect();
      await post('Profiler.enable');
      await post('Profiler.setSamplingInterval', { interval: 200 });
      await post('Profiler.start');
    },
    async stop() {
      if (!session) return;
      writeFileSync(file, JSON.stringify((await post('Profiler.stop')).profile));
    },
  };
}

/** Rates rounded for the printed line. */
const rounded = ({ median, min, max }, digits = 0) => ({
  median: Number(median.toFixed(digits)),
  min: Number(min.toFixed(digits)),
  max: Number(max.toFixed(digits)),
});

async function main() {
  const options = abArgs({ runs: 4000, passes: 7, profile: undefined }, ['runs', 'passes']);
  const template = readTemplate(options.template);
  const name = `flex_rebuild_ab_${process.pid}`;
  await withAbDatabase(options.root, name, {}, async ({ es, rm, database, client }) => {
    const store = new es.EventStore(database.db);
    await fill(store, template, options.runs);
    await client.query('vacuum analyze');
    const runner = new es.ProjectionRunner(database.db, store, [rm.createRunsProjection()], {
      batchSize: 500,
    });
    const profile = profiler(options.profile);
    const measured = await rebuildPasses(runner, client, options.passes, async (rebuild) => {
      await profile.start();
      await rebuild();
      await profile.stop();
    });
    const line = {
      root: options.root,
      events: options.runs * template.events.length,
      rebuildPerSec: rounded(spread(measured.rebuilds.map((r) => r.events / r.seconds))),
      readPerSec: rounded(spread(measured.reads.map((r) => r.rows / r.seconds))),
      ratio: rounded(spread(measured.ratios), 3),
    };
    console.log(JSON.stringify(line));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
