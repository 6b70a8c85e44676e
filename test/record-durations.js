#!/usr/bin/env node
'use strict';
// Writes test/suite-durations.json, the seconds each suite took, from a whole run's jest results:
//   NODE_OPTIONS=--experimental-vm-modules npx jest --json --outputFile=/tmp/jest.json
//   node test/record-durations.js /tmp/jest.json
// or from the cache jest keeps of its last run (after `npm test`; `npx jest --showConfig` names the
// cacheDirectory): node test/record-durations.js <cacheDirectory>/perf-cache-<id>
// test/sequencer.js starts the longest suites first by these figures when jest has no cache of its
// own (CI). Only the order depends on them: rerecord when suites are added or change much.
const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');
const [file] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node test/record-durations.js <jest --json output>\n');
  process.exit(2);
}
const results = JSON.parse(readFileSync(file, 'utf8'));
// jest --json: { startTime, testResults: [{ name, startTime, endTime }] }; a perf cache: { path: [status, ms] }.
const ms = results.testResults
  ? results.testResults.map((r) => [r.name, r.endTime - r.startTime])
  : Object.entries(results).map(([path, [, runtime]]) => [path, runtime]);
const seconds = ms
  .map(([path, t]) => [relative(ROOT, path), Math.round(t / 100) / 10])
  .sort(([pa, a], [pb, b]) => b - a || (pa < pb ? -1 : 1));
const out = {
  note: 'Seconds per suite in one whole run (test/record-durations.js); test/sequencer.js orders by them.',
  recordedAt: new Date(results.startTime ?? Date.now()).toISOString(),
  seconds: Object.fromEntries(seconds),
};
writeFileSync(join(__dirname, 'suite-durations.json'), `${JSON.stringify(out, null, 2)}\n`);
process.stdout.write(
  `${seconds.length} suites, ${seconds.reduce((s, [, t]) => s + t, 0).toFixed(0)} s in all\n`,
);
