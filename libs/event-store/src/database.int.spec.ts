import { Kysely, sql } from 'kysely';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from './database';
import { EventStore } from './event-store';
import { migrateToLatest } from './migrate';
import { startPostgres } from '@flex/testing';
import { newEvent, uniqueStream } from './store.spec-helper';

describe('createDatabase', () => {
  it('keeps a PGlite database in dataDir across restarts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'flex-pglite-'));
    try {
      const first = await createDatabase({ dataDir: join(dir, 'pg') });
      expect(first.kind).toBe('pglite');
      await migrateToLatest(first.db);
      const stream = uniqueStream();
      const { events } = await new EventStore(first.db).append(stream, [newEvent()], {
        expectedVersion: 'no_stream',
      });
      await first.close();
      await first.close();

      const second = await createDatabase({ dataDir: join(dir, 'pg') });
      expect(await migrateToLatest(second.db)).toEqual([]);
      expect(await new EventStore(second.db).readStream(stream)).toEqual(events);
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('connects to Postgres with a url, and fails fast on a bad one', async () => {
    const database = await createDatabase({ url: process.env.FLEX_TEST_DATABASE_URL, poolSize: 2 });
    expect(database.kind).toBe('postgres');
    expect((await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]);
    await database.close();
    await expect(createDatabase({ url: 'postgres://nobody@127.0.0.1:1/none' })).rejects.toThrow();
    await expect(createDatabase({ url: 'postgres://x', poolSize: 0 })).rejects.toMatchObject({
      code: 'INVALID_DATABASE_CONFIG',
    });
  });

  describe('PGlite, one connection', () => {
    let db: Kysely<any>;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ db, close } = await createDatabase({}));
      await sql`create table counter (n integer not null)`.execute(db);
      await sql`insert into counter values (0)`.execute(db);
    });
    afterAll(() => close());

    it('runs concurrent transactions one after another, never interleaved', async () => {
      // Read-then-write with no lock: interleaved transactions would lose increments.
      const increment = () =>
        db.transaction().execute(async (trx) => {
          const { n } = await trx.selectFrom('counter').select('n').executeTakeFirstOrThrow();
          await new Promise((resolve) => setImmediate(resolve));
          await trx
            .updateTable('counter')
            .set({ n: n + 1 })
            .execute();
        });
      const reads = Array.from({ length: 20 }, () => db.selectFrom('counter').select('n').execute());
      await Promise.all([...Array.from({ length: 25 }, increment), ...reads]);
      expect((await db.selectFrom('counter').select('n').executeTakeFirstOrThrow()).n).toBe(25);
    });

    it('frees the connection after a transaction fails', async () => {
      const failing = db.transaction().execute(async (trx) => {
        await trx.updateTable('counter').set({ n: -1 }).execute();
        throw new Error('rolled back');
      });
      await expect(failing).rejects.toThrow('rolled back');
      expect((await db.selectFrom('counter').select('n').executeTakeFirstOrThrow()).n).toBe(25);
    });
  });

  it('serves the event loop while PGlite works through queued statements', async () => {
    const { db, close } = await createDatabase({});
    try {
      await sql`create table turns (n int)`.execute(db);
      let done = 0;
      // The worker is held for a second; 200 inserts queue behind it (sent at once: pipelined).
      const held = sql`select pg_sleep(1)`.execute(db).then(() => done++);
      const inserts = Array.from({ length: 200 }, (_, n) =>
        sql`insert into turns values (${n})`.execute(db).then(() => done++),
      );
      // The database's work is in its own thread: this thread's loop turns meanwhile. (With PGlite on
      // this thread, the statements ran back to back in one turn: all 201 done before this ran.)
      const doneAtNextTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
      await Promise.all([held, ...inserts]);
      expect(doneAtNextTurn).toBe(0);
      expect((await sql<{ n: number }>`select count(*)::int as n from turns`.execute(db)).rows).toEqual([
        { n: 200 },
      ]);
    } finally {
      await close();
    }
  });
});

describe('createDatabase on a Postgres that restarts', () => {
  it('survives connections cut mid-query and mid-transaction (the queries fail), then dials again', async () => {
    // A server of its own, crash-safe so that a commit acknowledged before the crash is kept.
    const server = await startPostgres({ crashSafeCommits: true });
    const database = await createDatabase({ url: server.url, poolSize: 4 });
    try {
      await sql`create table kept (n int)`.execute(database.db);
      await sql`insert into kept values (1)`.execute(database.db);
      // Checked-out clients when the server goes: a transaction holding its connection, a query running.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const transaction = database.db.transaction().execute(async (trx) => {
        await sql`insert into kept values (2)`.execute(trx);
        await held;
        await sql`select 1`.execute(trx);
      });
      const sleeping = sql`select pg_sleep(30)`.execute(database.db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await server.crash();
      release();
      await expect(sleeping).rejects.toThrow();
      await expect(transaction).rejects.toThrow();
      await server.revive();
      const { rows } = await sql<{ n: number }>`select n from kept order by n`.execute(database.db);
      expect(rows).toEqual([{ n: 1 }]);
    } finally {
      await database.close();
      await server.stop();
    }
  }, 120_000);
});
