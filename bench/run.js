#!/usr/bin/env node
'use strict';
// `npm run bench [-- --quick] [-- section ...]`: runs the sections (all by default) against one
// Postgres and one NATS, prints one table with the bar of issue 13, writes the results to
// bench/results/latest.json and the generated part of docs/BENCHMARKS.md.
// Options: --quick (small counts, under two minutes), --out <file> (results JSON elsewhere),
// --no-docs (leave docs/BENCHMARKS.md alone), --list (the sections). The older stand-alone benches
// (bench/*.bench.js) still run on their own: `node bench/validator.bench.js`.
const { mkdirSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { openInfra, describeMachine } = require('./lib/infra');
const { startDistributed } = require('./systems/flex-distributed');
const report = require('./lib/report');

const SECTIONS = [
  require('./sections/compare'),
  require('./sections/sse'),
  require('./sections/growth'),
  require('./sections/store'),
  require('./sections/proof'),
  require('./sections/planner'),
  require('./sections/telemetry'),
];

function parseArgs(argv) {
  const options = { quick: false, docs: true, out: join(__dirname, 'results/latest.json'), sections: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--no-docs') options.docs = false;
    else if (arg === '--out') options.out = argv[++i];
    else if (arg === '--list') options.list = true;
    else if (arg.startsWith('-')) throw new Error(`unknown option ${arg}`);
    else options.sections.push(arg);
  }
  const unknown = options.sections.filter((s) => !SECTIONS.some((x) => x.name === s));
  if (unknown.length)
    throw new Error(
      `unknown section(s) ${unknown.join(', ')}; sections: ${SECTIONS.map((s) => s.name).join(', ')}`,
    );
  return options;
}

const log = (line) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/** Flex distributed, started at most once per bench run and stopped after the last section that needs it. */
function sharedDistributed(infra) {
  let started;
  return {
    get: () =>
      (started ??= (async () => {
        const db = await infra.createDatabase('flex_distributed');
        log('starting Flex distributed (5 services)');
        const flex = await startDistributed({ databaseUrl: db.url, natsUrl: infra.natsUrl });
        return { flex, db };
      })()),
    async stop() {
      if (!started) return;
      const { flex } = await started.catch(() => ({}));
      started = undefined;
      await flex?.stop();
    },
  };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.list) {
    for (const s of SECTIONS) console.log(`${s.name.padEnd(10)} ${s.title}`);
    return 0;
  }
  const chosen = SECTIONS.filter((s) => options.sections.length === 0 || options.sections.includes(s.name));
  const t0 = Date.now();
  const infra = await openInfra(log);
  const distributed = sharedDistributed(infra);
  // Interrupted: stop the services, drop the databases, stop a throwaway NATS, then go.
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => {
      log(`${signal}: cleaning up`);
      distributed
        .stop()
        .then(() => infra.close())
        .finally(() => process.exit(130));
    });
  const results = { mode: options.quick ? 'quick' : 'full', sections: {}, secondsPerSection: {} };
  let failed = 0;
  try {
    results.machine = await describeMachine(infra);
    const ctx = { quick: options.quick, infra, log, distributed: distributed.get };
    for (const [i, section] of chosen.entries()) {
      const started = Date.now();
      log(`section ${section.name}: ${section.title}`);
      try {
        results.sections[section.name] = await section.run(ctx);
      } catch (error) {
        failed++;
        log(`section ${section.name} failed: ${error.stack ?? error}`);
        results.sections[section.name] = { error: String(error.message ?? error) };
      }
      results.secondsPerSection[section.name] = (Date.now() - started) / 1000;
      if (!chosen.slice(i + 1).some((s) => s.needs?.includes('distributed'))) await distributed.stop();
    }
  } finally {
    await distributed.stop();
    await infra.close();
  }
  results.totalSeconds = (Date.now() - t0) / 1000;
  results.bar = report.evaluateBar(results);
  const rows = report.tableRows(results);
  process.stdout.write(`\n${report.renderTable(rows)}\n`);
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
  log(`results: ${options.out}`);
  if (options.docs) log(`docs: ${report.writeDocs(results, rows)}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
