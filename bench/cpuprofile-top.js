#!/usr/bin/env node
'use strict';
// Prints where a V8 CPU profile (.cpuprofile, from node --cpu-prof or the profiling drivers)
// spends its self time: by package and by function.   node bench/cpuprofile-top.js <file> [top]
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');

function packageOf(url, fn) {
  if (!url) return fn && fn.startsWith('(') ? fn : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const m = /^(libs|services|apps|agents)\/([^/]+)/.exec(url);
  return m ? `${m[1]}/${m[2]}` : url;
}

/** Self time per package and per function of a V8 CPU profile, printed as shares of the total. */
function summarizeProfile(profile, top = 30, print = console.log) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fns = new Map();
  const pkgs = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    const url = callFrame.url.replace(/^file:\/\//, '').replace(ROOT + '/', '');
    const key = `${callFrame.functionName || '(anonymous)'}  ${url}:${callFrame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    const pkg = packageOf(url, callFrame.functionName);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  }
  const fmt = (us) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const idle = pkgs.get('(idle)') ?? 0;
  print(`profile: ${(total / 1e6).toFixed(2)} s sampled, ${((total - idle) / 1e6).toFixed(2)} s busy`);
  print('by package (self time):');
  for (const [k, v] of [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 20)) print(`  ${fmt(v)}  ${k}`);
  print(`top ${top} functions (self time):`);
  for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) print(`  ${fmt(v)}  ${k}`);
}

/** Inclusive time per function (self time of it and everything it called), counted once per stack. */
function inclusive(profile, top = 40, print = console.log) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const incl = new Map();
  for (const [id, us] of self) {
    const seen = new Set();
    for (let n = id; n !== undefined; n = parent.get(n)) {
      const { callFrame } = byId.get(n);
      const key = `${callFrame.functionName || '(anonymous)'}  ${callFrame.url.replace(/^file:\/\//, '').replace(ROOT + '/', '')}:${callFrame.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + us);
    }
  }
  print(`top ${top} functions (inclusive time):`);
  for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, top))
    print(`  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
}

module.exports = { summarizeProfile, inclusive };

if (require.main === module) {
  const [file, top, mode] = process.argv.slice(2);
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  if (mode === 'inclusive') inclusive(profile, Number(top ?? 40));
  else summarizeProfile(profile, Number(top ?? 30));
}
