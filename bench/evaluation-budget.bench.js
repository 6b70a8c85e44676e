'use strict';
// Evaluation budgets (issue 12 point 1): what an untrusted JSONLogic rule can cost.
// 1. The attack, 358 bytes of nested `map`s over literal arrays: before (json-logic-js, as
//    Flex ran it) and after (refused by the static check; and, evaluated anyway, stopped by the
//    budget). Five levels before run in a child process with a 1 GiB heap, which they exhaust.
// 2. A fast-check search of hostile rules within the static limits, over data up to 400 x 400 x 400
//    items and 200,000-character texts, under the default budget: the worst evaluation time.
// Requires the built packages (`npm run build`).
const { join } = require('node:path');
const { cpus, loadavg } = require('node:os');
const { spawnSync } = require('node:child_process');
const fc = require('fast-check');
const { line } = require('./stats');

const ROOT = join(__dirname, '..');
const { validateJsonLogic, LIMITS } = require(join(ROOT, 'libs/contracts/dist/index.js'));
const { evaluateRule, interpret, Meter } = require(join(ROOT, 'libs/logic/dist/index.js'));
const SUPPORT = join(ROOT, 'libs/logic/dist/test-support');
const { nestedMapAttack } = require(join(SUPPORT, 'nested-map-attack.js'));
const { oracleApply } = require(join(SUPPORT, 'json-logic-oracle.js'));
const { hostileRule, hostileSizes, hostileDataOf } = require(join(SUPPORT, 'hostile.arbitraries.js'));

/** Wall time, and CPU time (user + system: what a loaded machine's other work does not inflate). */
const time = (run) => {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = run();
  const spent = process.cpuUsage(cpu);
  return { value, ms: performance.now() - started, cpuMs: (spent.user + spent.system) / 1000 };
};
const f = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));

console.log(`budget: ${LIMITS.jsonLogicMaxOperations} operations, ${LIMITS.jsonLogicMaxItems} items`);

for (const levels of [3, 5]) {
  const rule = nestedMapAttack(levels);
  const bytes = JSON.stringify(rule).length;
  const refused = time(() => validateJsonLogic(rule));
  const codes = refused.value.map((i) => `${i.code} at "${i.path}"`).join(', ');
  console.log(`${levels} levels (${bytes} bytes): refused in ${f(refused.ms)} ms: ${codes}`);
  const stopped = time(() => {
    try {
      interpret(rule, {}, new Meter());
      return 'no error';
    } catch (error) {
      return error.code;
    }
  });
  console.log(
    `${levels} levels evaluated anyway: ${stopped.value} after ${f(stopped.ms)} ms ` +
      `(CPU ${f(stopped.cpuMs)} ms)`,
  );
  console.log(`${levels} levels before (json-logic-js): ${before(levels)}`);
}

/** The attack under json-logic-js in a child process: its time, or how it died. */
function before(levels) {
  const script =
    `const { oracleApply } = require(${JSON.stringify(join(SUPPORT, 'json-logic-oracle.js'))});` +
    `const { nestedMapAttack } = require(${JSON.stringify(join(SUPPORT, 'nested-map-attack.js'))});` +
    `const t = performance.now(); const r = oracleApply(nestedMapAttack(${levels}), {});` +
    `console.log((performance.now() - t).toFixed(0) + ' ms, ' + (r.ok ? 'evaluated' : r.error));`;
  const started = Date.now();
  const child = spawnSync(process.execPath, ['--max-old-space-size=1024', '-e', script], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (child.status === 0) return child.stdout.trim();
  const why = /heap out of memory/.test(child.stderr) ? 'out of memory (1 GiB heap)' : `exit ${child.status}`;
  return `crashed after ${((Date.now() - started) / 1000).toFixed(1)} s: ${why}`;
}

// Warm every operator first over small data, as in a service that has run a few rules: the
// figures below are then evaluation, not the JIT compiling a code path for the first time (the
// two attacks above ran cold).
for (const rule of fc.sample(hostileRule, { numRuns: 200, seed: 1 }))
  evaluateRule(rule, hostileDataOf([3, 10]));

const RUNS = Number(process.env.FLEX_BENCH_HOSTILE_RUNS ?? 500);
// Sizes, not data, are sampled up front: the data is built for its run and dropped, so the heap
// (and its collections) stays what one evaluation makes it.
const samples = fc.sample(fc.tuple(hostileRule, hostileSizes), { numRuns: RUNS, seed: 12 });
const times = [];
const cpuTimes = [];
let stopped = 0;
let worst = { ms: 0, rule: '' };
let worstCpu = { ms: 0, rule: '' };
for (const [rule, sizes] of samples) {
  const data = hostileDataOf(sizes);
  if (validateJsonLogic(rule).length > 0)
    throw new Error(`not within the static limits: ${JSON.stringify(rule)}`);
  const { value, ms, cpuMs } = time(() => evaluateRule(rule, data));
  times.push(ms);
  cpuTimes.push(cpuMs);
  if (!value.ok && value.code === 'evaluation_budget_exceeded') stopped += 1;
  if (ms > worst.ms) worst = { ms, rule: JSON.stringify(rule) };
  if (cpuMs > worstCpu.ms) worstCpu = { ms: cpuMs, rule: JSON.stringify(rule) };
}
console.log(line(`${RUNS} hostile rules (${stopped} stopped), wall`, times));
console.log(line(`${RUNS} hostile rules (${stopped} stopped), CPU`, cpuTimes));
console.log(`worst hostile evaluation, wall: ${f(worst.ms)} ms: ${worst.rule.slice(0, 140)}`);
console.log(`worst hostile evaluation, CPU: ${f(worstCpu.ms)} ms: ${worstCpu.rule.slice(0, 140)}`);
console.log(`load average while measuring: ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`);
