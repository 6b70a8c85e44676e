#!/usr/bin/env node
// Runs every bench/*.bench.js in turn (or the ones named on the command line) and lets each print its figures.
'use strict';
const { readdirSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const wanted = process.argv.slice(2);
const files = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.includes(w)))
  .sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n## ${file}\n`);
  const result = spawnSync(process.execPath, [join(__dirname, file)], { stdio: 'inherit', env: process.env });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
