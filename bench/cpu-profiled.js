#!/usr/bin/env node
'use strict';
// Runs a script under the V8 CPU profiler and writes <FLEX_CPU_PROFILE_DIR>/<name>-<pid>.cpuprofile
// when the process exits (node refuses --cpu-prof in NODE_OPTIONS, and child processes get no flags).
//   FLEX_CPU_PROFILE_DIR=/tmp/p node bench/cpu-profiled.js services/gateway/dist/main.js
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');
const { basename, dirname, join, resolve } = require('node:path');

const script = resolve(process.argv[2]);
process.argv.splice(1, 1); // the profiled script sees itself as argv[1]
const session = new inspector.Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 500 });
session.post('Profiler.start');
process.on('exit', () => {
  session.post('Profiler.stop', (error, result) => {
    if (error) return;
    const name = `${basename(dirname(dirname(script)))}-${process.pid}.cpuprofile`;
    writeFileSync(join(process.env.FLEX_CPU_PROFILE_DIR ?? '.', name), JSON.stringify(result.profile));
  });
});
require(script);
