#!/usr/bin/env node
// `npm start`: build once, then start the embedded system from the build.
//
// The build is current when a hash of everything it is made from (each workspace package's files
// but its dist/ and specs, and the root's build configuration) equals the stamp the last build
// left in node_modules/.cache/flex/. Only then does a start skip it: an edit, a checkout or an
// `npm ci` means one build at the next start, and no build at the ones after.
//
// FLEX_BUILD_CACHE_DIR moves the stamp and the build lock elsewhere (tests use their own), and
// FLEX_BUILD_COMMAND replaces `npm run build --silent` (tests: a build that leaves the shared dist/
// alone, which other specs run from at the same time; nx restoring a cached build replaces it).
//
// Two starts at once take turns on a build lock (the same kind as the data directory's: the pid
// hard-linked into place, a dead holder's lock taken over), so one builds while the other waits,
// then finds the build current. Then each starts; a second one on the same data directory refuses
// in one line (DATA_DIR_LOCKED).
'use strict';
const { spawnSync } = require('node:child_process');
const { createHash, randomUUID } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const CACHE = process.env.FLEX_BUILD_CACHE_DIR || path.join(ROOT, 'node_modules', '.cache', 'flex');
const STAMP = path.join(CACHE, 'build-stamp');
const LOCK = path.join(CACHE, 'build.lock');
const MAIN = path.join(ROOT, 'apps', 'flex', 'dist', 'embedded', 'main.js');
const PACKAGE_DIRS = ['libs', 'services', 'agents', 'apps'];
const ROOT_FILES = [
  'package.json',
  'package-lock.json',
  'nx.json',
  '.swcrc',
  'tsconfig.base.json',
  'tsconfig.json',
];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.nx', 'coverage']);

/** Every file the build reads, relative to the root, sorted. */
function buildInputs() {
  const files = ROOT_FILES.filter((f) => fs.existsSync(path.join(ROOT, f)));
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(rel);
      } else if (entry.isFile() && !entry.name.endsWith('.spec.ts')) files.push(rel);
    }
  };
  for (const dir of PACKAGE_DIRS) if (fs.existsSync(path.join(ROOT, dir))) walk(dir);
  return files.sort();
}

/** sha256 over each input's path and content. */
function sourceHash() {
  const hash = createHash('sha256');
  for (const file of buildInputs()) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function isCurrent(hash) {
  try {
    return fs.readFileSync(STAMP, 'utf8').trim() === hash && fs.existsSync(MAIN);
  } catch {
    return false;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Take the build lock: true once held; false while a live process holds it. */
function tryLock() {
  const aside = `${LOCK}.${process.pid}.${randomUUID()}`;
  fs.writeFileSync(aside, String(process.pid));
  try {
    fs.linkSync(aside, LOCK);
    return true;
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(aside, { force: true });
  }
  let holder;
  try {
    holder = Number(fs.readFileSync(LOCK, 'utf8').trim());
  } catch (error) {
    if (error.code === 'ENOENT') return false;
    throw error;
  }
  if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) return false;
  // A dead holder's lock: removed under a guard (mkdir is atomic), only if it still names that pid.
  const guard = `${LOCK}.takeover`;
  try {
    fs.mkdirSync(guard);
  } catch {
    return false;
  }
  try {
    if (fs.readFileSync(LOCK, 'utf8').trim() === String(holder)) fs.rmSync(LOCK, { force: true });
  } catch {
    // gone already
  } finally {
    fs.rmSync(guard, { recursive: true, force: true });
  }
  return false;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function buildIfStale() {
  if (isCurrent(sourceHash())) return;
  fs.mkdirSync(CACHE, { recursive: true });
  let said = false;
  while (!tryLock()) {
    if (!said) process.stderr.write('flex: another start is building; waiting for it\n');
    said = true;
    await sleep(250);
  }
  try {
    // Hashed again under the lock: the start we waited for may have built this very source.
    const hash = sourceHash();
    if (isCurrent(hash)) return;
    process.stderr.write('flex: building (the sources changed since the last build)\n');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const command = process.env.FLEX_BUILD_COMMAND;
    const built = command
      ? spawnSync(command, { cwd: ROOT, stdio: 'inherit', shell: true })
      : spawnSync(npm, ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) {
      process.stderr.write('flex: the build failed; see above\n');
      process.exit(built.status ?? 1);
    }
    fs.writeFileSync(STAMP, `${hash}\n`);
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
}

buildIfStale().then(
  () => require(MAIN),
  (error) => {
    process.stderr.write(`flex: ${error && error.stack}\n`);
    process.exit(1);
  },
);
