'use strict';
// Longest suites first, so that the two workers finish together instead of one of them starting a
// 90-second cluster spec when the other has nothing left. Jest's own order (failed first, then
// slowest by its cache of the last run, then biggest file) needs that cache; CI starts without one,
// and file size says little: the process-chaos spec is 7 lines. So a suite's expected time is
// jest's cached one when there is one (a developer's machine), else the one recorded in
// test/suite-durations.json (test/record-durations.js), else a guess by tier.
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const recorded = require('./suite-durations.json');

/** Seconds a suite not yet recorded is expected to take, by the suffix that says what it starts. */
const GUESS = [
  [/\.e2e\.spec\.ts$/, 30],
  [/\.int\.spec\.ts$/, 10],
  [/./, 1],
];

class LongestFirst extends Sequencer {
  sort(tests) {
    const expected = new Map(tests.map((test) => [test, this.expectedMs(test)]));
    return [...tests].sort(
      (a, b) =>
        Number(this.hasFailed(b)) - Number(this.hasFailed(a)) ||
        expected.get(b) - expected.get(a) ||
        (a.path < b.path ? -1 : 1),
    );
  }

  expectedMs(test) {
    const cached = this.time(test);
    if (cached !== undefined) return cached;
    const path = relative(test.context.config.rootDir, test.path);
    const seconds = recorded.seconds[path] ?? GUESS.find(([pattern]) => pattern.test(path))[1];
    return seconds * 1000;
  }
}

module.exports = LongestFirst;
