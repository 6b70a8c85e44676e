import { Kysely, sql } from 'kysely';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { migrateToLatest } from './migrate';
import { PGliteWorkerClient, type PGliteWorkerOptions } from './pglite-worker-client';
import { PipelinedPGliteDialect } from './pipelined-pglite-dialect';

/** What tells two fresh databases apart, if anything does: catalogs, settings, roles, objects. */
const FACTS = [
  'select datname, encoding, datcollate, datctype, datallowconn from pg_database order by datname',
  'select rolname, rolsuper from pg_roles order by rolname',
  `select name, setting from pg_settings where name not in ('data_directory', 'config_file', 'hba_file', 'ident_file') order by name`,
  `select n.nspname, c.relname, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname not like 'pg_toast%' order by 1, 2`,
  'select current_user, current_database()',
];

async function facts(client: PGliteWorkerClient): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const text of FACTS) out.push((await client.query(text)).rows);
  return out;
}

async function opened(options: PGliteWorkerOptions): Promise<PGliteWorkerClient> {
  const client = new PGliteWorkerClient(options);
  await client.ready;
  return client;
}

/** Opens a database that must start by initdb, checks that it answers, and closes it. */
async function expectInitdbAndWorking(options: PGliteWorkerOptions): Promise<void> {
  const client = await opened(options);
  try {
    expect(client.startedFrom).toBe('initdb');
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await client.close();
  }
}

/** The seed file in `dir`, if there is one. */
function seedIn(dir: string): string | undefined {
  const name = readdirSync(dir).find((file) => file.endsWith('.tar.gz'));
  return name === undefined ? undefined : join(dir, name);
}

describe('a new PGlite database starts from the seed initdb left (pglite-seed.js)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'flex-seed-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('the first new database runs initdb and leaves the seed; the next starts from it, the same database', async () => {
    const seedDir = join(root, 'first');
    // As a first `npm start` makes it: from a database on disk.
    const first = await opened({ seedDir, dataDir: join(root, 'first-data') });
    const second = await opened({ seedDir });
    try {
      expect(first.startedFrom).toBe('initdb');
      expect(second.startedFrom).toBe('seed');
      const seed = seedIn(seedDir);
      expect(seed).toBeDefined();
      expect(readdirSync(seedDir)).toEqual([seed?.split('/').at(-1)]); // no temporary file left
      expect(await facts(second)).toEqual(await facts(first));
      // Both take the store's migrations and come out with the same schema.
      for (const client of [first, second]) {
        const db = new Kysely<unknown>({ dialect: new PipelinedPGliteDialect(client) });
        await migrateToLatest(db);
        await sql`insert into events (position, id, stream_id, version, type, payload, metadata)
          values (1, gen_random_uuid(), 's', 1, 't', '{}', '{}')`.execute(db);
      }
      expect(await facts(second)).toEqual(await facts(first));
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 120_000);

  it('a data directory is seeded only while it holds no database: then it is opened as it is', async () => {
    const seedDir = join(root, 'disk');
    await (await opened({ seedDir })).close(); // leaves the seed
    const dataDir = join(root, 'data');
    const seeded = await opened({ seedDir, dataDir });
    expect(seeded.startedFrom).toBe('seed');
    await seeded.query('create table kept (x int)');
    await seeded.query('insert into kept values (7)');
    await seeded.close();
    expect(existsSync(join(dataDir, 'PG_VERSION'))).toBe(true);
    const reopened = await opened({ seedDir, dataDir });
    try {
      expect(reopened.startedFrom).toBe('existing');
      expect((await reopened.query('select x from kept')).rows).toEqual([{ x: 7 }]);
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it('a bad seed (not gzip, or cut short) is removed, and the database made by initdb leaves a good one', async () => {
    const seedDir = join(root, 'bad');
    await (await opened({ seedDir })).close();
    const path = seedIn(seedDir) as string;
    const good = readFileSync(path);
    for (const bad of [Buffer.from('not a tarball'), good.subarray(0, good.length >> 1)]) {
      writeFileSync(path, bad);
      await expectInitdbAndWorking({ seedDir });
      expect(() => gunzipSync(readFileSync(path))).not.toThrow();
    }
  }, 120_000);

  it('without a seed directory, or with one it cannot write, every new database runs initdb and works', async () => {
    const blocked = join(root, 'a-file');
    writeFileSync(blocked, 'not a directory');
    for (const seedDir of [null, join(blocked, 'seeds')]) await expectInitdbAndWorking({ seedDir });
  }, 120_000);
});
