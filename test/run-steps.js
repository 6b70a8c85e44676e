#!/usr/bin/env node
'use strict';
// `node test/run-steps.js typecheck lint build`: the npm scripts named, side by side rather than one
// after the other (`npm test` runs its checks and the build this way before jest). Each step's
// output is printed whole once it ends, so two steps never interleave their lines; the exit code is
// the first failing step's, and every step runs to its end either way, so one run reports them all.
// On a 2-core machine tsc and type-aware eslint, single-threaded each, take about half the time
// together that they take in turn (docs/BENCHMARKS.md, "The test command").
const { spawn } = require('node:child_process');

const steps = process.argv.slice(2);
if (steps.length === 0) {
  process.stderr.write('usage: node test/run-steps.js <npm script>...\n');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(step) {
  const began = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', step, '--silent'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => output.push(Buffer.from(`${error.stack}\n`)));
    child.on('close', (code, signal) => {
      const took = ((Date.now() - began) / 1000).toFixed(1);
      const status = code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> ${step}: ${status} in ${took} s\n${Buffer.concat(output).toString()}`);
      resolve(code ?? 1);
    });
  });
}

Promise.all(steps.map(run)).then((codes) => {
  process.exitCode = codes.find((code) => code !== 0) ?? 0;
});
