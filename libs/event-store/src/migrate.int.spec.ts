import { createTestDatabase, TestDatabase } from '@flex/testing';
import { Kysely, Migration, sql } from 'kysely';
import { createDatabase, FlexDatabase } from './database';
import { migrateToLatest } from './migrate';
import { eventStoreMigrations } from './migrations';

const STORE_TABLES = ['checkpoints', 'dead_letters', 'events', 'idempotency_keys', 'outbox', 'secrets'];

function createsTable(name: string): Migration {
  return { up: (db: Kysely<any>) => db.schema.createTable(name).addColumn('id', 'integer').execute() };
}

async function tables(db: Kysely<any>): Promise<string[]> {
  const result = await sql<{
    name: string;
  }>`select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(db);
  return result.rows.map((row) => row.name);
}

async function applied(db: Kysely<any>): Promise<string[]> {
  return (await db.selectFrom('kysely_migration').select('name').orderBy('name').execute()).map(
    (row) => row.name,
  );
}

describe('migrateToLatest on postgres', () => {
  let testDb: TestDatabase;
  const opened: FlexDatabase[] = [];
  const open = async () => {
    const database = await createDatabase({ url: testDb.url, poolSize: 2 });
    opened.push(database);
    return database.db;
  };

  beforeEach(async () => {
    testDb = await createTestDatabase('migrate');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    await testDb.drop();
  });

  it('is safe when several processes migrate a fresh database at once', async () => {
    const dbs = await Promise.all(Array.from({ length: 6 }, open));
    const results = await Promise.all(dbs.map((db) => migrateToLatest(db)));

    expect(results.flat().sort()).toEqual(Object.keys(eventStoreMigrations).sort());
    expect(await tables(dbs[0])).toEqual(expect.arrayContaining(STORE_TABLES));
    expect(await applied(dbs[0])).toEqual(Object.keys(eventStoreMigrations));
  });

  it('runs extra migrations beside its own, and accepts ones another service applied', async () => {
    const [gateway, readModels] = await Promise.all([open(), open()]);
    await migrateToLatest(gateway);
    expect(await migrateToLatest(readModels, { '2026112280_spec_runs': createsTable('spec_runs') })).toEqual([
      '2026112280_spec_runs',
    ]);
    // A service that does not know the read models' migrations still starts, and still migrates.
    expect(
      await migrateToLatest(gateway, { '2026112270_spec_earlier': createsTable('spec_earlier') }),
    ).toEqual(['2026112270_spec_earlier']);
    expect(await migrateToLatest(gateway)).toEqual([]);
    expect(await tables(gateway)).toEqual(expect.arrayContaining(['spec_earlier', 'spec_runs']));
  });

  it('refuses badly named extras and fails loudly on a broken migration', async () => {
    const db = await open();
    await expect(migrateToLatest(db, { runs: createsTable('x') })).rejects.toMatchObject({
      code: 'MIGRATION_FAILED',
    });
    await expect(migrateToLatest(db, { '2026112201_events': createsTable('x') })).rejects.toMatchObject({
      code: 'MIGRATION_FAILED',
    });
    const broken = {
      '2026112299_spec_broken': {
        up: async (k: Kysely<any>) => void (await sql`select * from no_such_table`.execute(k)),
      },
    };
    await expect(migrateToLatest(db, broken)).rejects.toThrow(/2026112299_spec_broken.*no_such_table/);
  });
});

describe('migrateToLatest on pglite', () => {
  it('migrates once and is a no-op the second time', async () => {
    const database = await createDatabase({});
    try {
      expect(await migrateToLatest(database.db)).toEqual(Object.keys(eventStoreMigrations));
      expect(await migrateToLatest(database.db)).toEqual([]);
      expect(await tables(database.db)).toEqual(expect.arrayContaining(STORE_TABLES));
    } finally {
      await database.close();
    }
  });
});
