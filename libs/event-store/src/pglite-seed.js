'use strict';
// A new PGlite database starts from a seed: the data directory PGlite's initdb makes, kept once as a
// tarball (PGlite's own dumpDataDir, as its clone() uses), instead of running initdb again. initdb
// is most of the cost of a new database: about 1.6 s of CPU in memory and more on disk, against
// about 0.5 s to load the seed (docs/BENCHMARKS.md, "Round 6"). Only a database that does not exist
// yet is seeded; one that does is opened as it is.
//
// The seed of each PGlite version is a gzip file in `seedDir` (by default node_modules/.cache/flex,
// beside the PGlite package, so `npm ci` starts over): gzip's CRC checks it whole when it is read,
// a bad one is removed and made again, and it is written under a temporary name and renamed, so a
// reader never sees half of one. Making it is best effort: where it cannot be written, databases
// are made by initdb as before. Plain JavaScript, as pglite-worker.js that requires it.
const { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { threadId } = require('node:worker_threads');
const { gunzipSync, gzipSync } = require('node:zlib');
const { PGlite } = require('@electric-sql/pglite');

/** The PGlite package's directory (its package.json is not among its exports). */
const PACKAGE = join(dirname(require.resolve('@electric-sql/pglite')), '..');
const VERSION = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')).version;

/** node_modules/.cache/flex of the node_modules that holds PGlite. */
const DEFAULT_SEED_DIR = join(PACKAGE, '..', '..', '.cache', 'flex');

/**
 * Opens PGlite on `dataDir` (in memory when undefined), from the seed when the database is new.
 * `seedDir` null: no seed is read or made. Resolves once PGlite is ready, with how it started:
 * `existing` (the directory held a database), `seed` or `initdb` (a new one, which then left the seed
 * for the next).
 */
async function openPGlite({ dataDir, seedDir = DEFAULT_SEED_DIR }) {
  const fresh = dataDir === undefined || !existsSync(join(dataDir, 'PG_VERSION'));
  const path = seedDir === null ? undefined : join(seedDir, `pglite-${VERSION}-data.tar.gz`);
  const seed = fresh && path !== undefined ? readSeed(path) : undefined;
  const pglite = new PGlite({
    ...(dataDir !== undefined && { dataDir }),
    ...(seed && { loadDataDir: new Blob([seed]) }),
  });
  await pglite.waitReady;
  if (!fresh) return { pglite, startedFrom: 'existing' };
  if (seed) return { pglite, startedFrom: 'seed' };
  if (path !== undefined) await keepSeed(pglite, path).catch(() => undefined);
  return { pglite, startedFrom: 'initdb' };
}

/** The seed's tarball, or undefined when there is none or it is bad (then it is removed). */
function readSeed(path) {
  let packed;
  try {
    packed = readFileSync(path);
  } catch {
    return undefined;
  }
  try {
    return gunzipSync(packed);
  } catch {
    rmSync(path, { force: true });
    return undefined;
  }
}

/** Keeps the data directory of `pglite`, just made by initdb, as the seed at `path`. */
async function keepSeed(pglite, path) {
  // Its files as of a checkpoint: a database started from it has no WAL to replay.
  await pglite.exec('checkpoint');
  const tarball = new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}-${threadId}.tmp`;
  try {
    writeFileSync(temporary, gzipSync(tarball, { level: 1 }));
    renameSync(temporary, path);
  } finally {
    rmSync(temporary, { force: true });
  }
}

module.exports = { openPGlite, DEFAULT_SEED_DIR, PGLITE_VERSION: VERSION };
