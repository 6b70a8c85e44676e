'use strict';
// Policy what-if (issue 17, point 4): the cost of re-deciding one recorded run with candidate
// policies (twice: with its own policies, to tell a changed decision logic apart, and with the
// candidate's), over the replay corpus, with a policy that escalates every completed node. Prints the
// median time per run over many passes. Requires the built packages (`npm run build`).
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { line } = require('./stats');

const ROOT = join(__dirname, '..');
const { parseExportFile, whatIfRun } = require(join(ROOT, 'libs/replay/dist/index.js'));
const { flexReplayAdapters } = require(join(ROOT, 'apps/flex/dist/replay/replay-adapters.js'));

const CORPUS = join(ROOT, 'test/replay-corpus');
const settings = JSON.parse(readFileSync(join(CORPUS, 'settings.json'), 'utf8'));
const runs = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.ndjson'))
  .map((f) => ({
    events: parseExportFile(readFileSync(join(CORPUS, f), 'utf8')),
    adapters: flexReplayAdapters(settings[f]),
  }));
const escalate = [{ id: 'escalate', trigger: { kind: 'onNodeComplete' }, action: { type: 'hitl' } }];

const pass = () => {
  const started = process.hrtime.bigint();
  for (const run of runs) whatIfRun(run.events, escalate, run.adapters);
  return Number(process.hrtime.bigint() - started) / 1e6 / runs.length;
};
for (let i = 0; i < 5; i++) pass(); // JIT warm-up
const samples = Array.from({ length: 30 }, pass);
const events = runs.reduce((n, r) => n + r.events.length, 0);
console.log(`policy what-if, ${runs.length} corpus runs (${events} events), per run:`);
console.log(line('what-if of one recorded run', samples));
