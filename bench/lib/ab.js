'use strict';
// What bench/append-ab.js and bench/rebuild-ab.js share: their `--name value` arguments, and a fresh
// database on FLEX_BENCH_DATABASE_URL (or the local server) with the store's and read models'
// migrations, made by the build under test and dropped after.
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');

/** `--name value` pairs over `defaults` (the names in `numeric` as numbers); --template is required. */
function abArgs(defaults, numeric) {
  const out = { root: join(__dirname, '..', '..'), template: undefined, ...defaults };
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i].replace(/^--/, ''), argv[i + 1]];
    out[name] = numeric.includes(name) ? Number(value) : value;
  }
  if (!out.template) throw new Error('--template <file> is required (see the header)');
  return { ...out, root: resolve(out.root) };
}

/**
 * Runs `body` on a new database named `name` (migrated by the build at `root`), with that build's
 * modules, a pg client on the database and one on the server; drops the database after. `durable`:
 * synchronous_commit on for the database, whatever the server's setting.
 */
async function withAbDatabase(root, name, { durable = false } = {}, body) {
  const { Client } = require(join(root, 'node_modules/pg'));
  const es = require(join(root, 'libs/event-store/dist'));
  const rm = require(join(root, 'libs/read-models/dist'));
  const adminUrl = process.env.FLEX_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  if (durable) await admin.query(`alter database "${name}" set synchronous_commit = on`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await es.createDatabase({ url: url.toString(), poolSize: 10 });
  const client = new Client({ connectionString: url.toString() });
  try {
    await es.migrateToLatest(database.db, rm.readModelMigrations);
    await client.connect();
    return await body({ es, rm, database, client, admin });
  } finally {
    await client.end().catch(() => undefined);
    await database.close();
    await admin.query(`drop database "${name}" with (force)`).catch(() => undefined);
    await admin.end();
  }
}

/** The recorded run (`--template`). */
function readTemplate(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

module.exports = { abArgs, withAbDatabase, readTemplate };
