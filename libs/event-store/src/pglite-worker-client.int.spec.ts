import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { Kysely, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { createDatabase } from './database';
import { PGliteWorkerClient } from './pglite-worker-client';

const TABLE = `create table kinds (
  big int8, small int4, name text, at timestamptz, doc jsonb, raw json, bytes bytea, flag boolean,
  ratio float8, tags text[]
)`;
const INSERT = `insert into kinds values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *`;

const orNull = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: null });
/** A row's parameters, of every kind the store and the read models pass, nulls and bad values included. */
const params = fc.tuple(
  orNull(fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.maxSafeInteger())),
  orNull(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })),
  orNull(fc.string({ unit: 'grapheme-ascii' })),
  orNull(fc.date({ min: new Date('1970-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })),
  orNull(fc.jsonValue()),
  orNull(fc.jsonValue().map((value) => JSON.stringify(value) ?? 'null')),
  orNull(
    fc.oneof(
      fc.uint8Array(),
      fc.uint8Array().map((bytes) => Buffer.from(bytes)),
    ),
  ),
  orNull(fc.boolean()),
  orNull(fc.double()),
  orNull(fc.array(orNull(fc.string()))),
);

/** What a caller sees of a query: the result, or the error's message and fields. */
async function outcome(query: Promise<unknown>): Promise<unknown> {
  try {
    return { result: await query };
  } catch (error) {
    const fields = Object.entries(error as object).filter(
      ([, value]) => typeof value !== 'object' && value !== undefined,
    );
    return { message: (error as Error).message, error: Object.fromEntries(fields) };
  }
}

describe('PGliteWorkerClient', () => {
  let client: PGliteWorkerClient;
  let inThread: PGlite;
  beforeAll(async () => {
    client = new PGliteWorkerClient();
    inThread = new PGlite();
    await Promise.all([client.ready, inThread.waitReady]);
    await Promise.all([client.query(TABLE), inThread.query(TABLE)]);
  });
  afterAll(() => Promise.all([client.close(), inThread.close()]));

  it('gives back what PGlite on this thread gives: rows, fields and errors, for any parameters', async () => {
    await fc.assert(
      fc.asyncProperty(params, async (values) => {
        const viaWorker = await outcome(client.query(INSERT, values));
        // Strict: of this realm too (Object, Date, Uint8Array of the spec's own, as its code checks).
        expect(viaWorker).toStrictEqual(await outcome(inThread.query(INSERT, values)));
      }),
      { numRuns: 150 },
    );
  });

  it('hands back objects of the caller’s realm (jest runs the spec in a vm context of its own)', async () => {
    const { rows } = await client.query<Record<string, unknown>>(
      `select '{"a": [1]}'::jsonb as doc, now() as at, '\\x01'::bytea as bytes`,
    );
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Object.getPrototypeOf(rows[0].doc)).toBe(Object.prototype);
    expect((rows[0].doc as { a: unknown }).a).toBeInstanceOf(Array);
    expect(rows[0].at).toBeInstanceOf(Date);
    expect(rows[0].bytes).toBeInstanceOf(Uint8Array);
  });

  it('hands back an error with its SQLSTATE and the fields callers read, as an Error', async () => {
    await client.query('create table uniq (id int constraint uniq_id primary key)');
    await client.query('insert into uniq values (1)');
    const error = await client.query('insert into uniq values (1)').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: '23505',
      constraint: 'uniq_id',
      detail: 'Key (id)=(1) already exists.',
      table: 'uniq',
      message: expect.stringContaining('duplicate key value violates unique constraint'),
    });
  });

  it('runs statements in the order they were sent, whoever sends them', async () => {
    await client.query('create table sent (seq serial, n int)');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(1000), { minLength: 1, maxLength: 60 }), async (ns) => {
        await client.query('truncate sent');
        const first = await client.query<{ seq: number }>(`select nextval('sent_seq_seq')::int as seq`);
        const inserted = await Promise.all(
          ns.map((n) => client.query<{ seq: number }>('insert into sent (n) values ($1) returning seq', [n])),
        );
        const seqs = inserted.map((r) => r.rows[0].seq - first.rows[0].seq);
        expect(seqs).toEqual(ns.map((_, i) => i + 1));
      }),
      { numRuns: 30 },
    );
  });
});

describe('PGlite in a worker thread behind Kysely', () => {
  it('keeps concurrent transactions whole: each one’s rows are contiguous, none lost', async () => {
    const { db, close } = await createDatabase({ pgliteThread: 'worker' });
    try {
      await sql`create table written (seq serial, tx int, k int)`.execute(db);
      await fc.assert(
        fc.asyncProperty(fc.array(fc.nat(4), { minLength: 1, maxLength: 12 }), async (sizes) => {
          await sql`truncate written`.execute(db);
          const write = (tx: number, size: number) =>
            db.transaction().execute(async (trx) => {
              for (let k = 0; k < size; k++) {
                await sql`insert into written (tx, k) values (${tx}, ${k})`.execute(trx);
                await new Promise((resolve) => setImmediate(resolve));
              }
            });
          await Promise.all(sizes.map((size, tx) => write(tx, size)));
          const { rows } = await sql<{
            tx: number;
            k: number;
          }>`select tx, k from written order by seq`.execute(db);
          const runs = rows.map((row) => `${row.tx}:${row.k}`);
          const expected = sizes.flatMap((size, tx) => Array.from({ length: size }, (_, k) => `${tx}:${k}`));
          expect(runs).toEqual(expected);
        }),
        { numRuns: 25 },
      );
    } finally {
      await close();
    }
  });
});

describe('PGliteWorkerClient, closing and dying', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'flex-pglite-worker-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('runs what was sent before close(), flushes it to dataDir, then refuses more', async () => {
    const first = new PGliteWorkerClient({ dataDir: join(dir, 'pg') });
    await first.ready;
    await first.query('create table kept (n int)');
    const inserts = Array.from({ length: 20 }, (_, n) => first.query('insert into kept values ($1)', [n]));
    await Promise.all([first.close(), first.close()]);
    await Promise.all(inserts);
    await expect(first.query('select 1')).rejects.toThrow(/closed/);

    const second = new PGliteWorkerClient({ dataDir: join(dir, 'pg') });
    try {
      await second.ready;
      expect((await second.query('select count(*)::int as n from kept')).rows).toEqual([{ n: 20 }]);
    } finally {
      await second.close();
    }
  });

  it('fails the queries under way and every later one when the worker thread dies', async () => {
    const onExit = jest.fn();
    const client = new PGliteWorkerClient({ onExit });
    await client.ready;
    const running = client.query('select count(*) from generate_series(1, 200000000)');
    // A crash, as an uncaught error or the thread running out of memory would end it.
    await (client as unknown as { worker: Worker }).worker.terminate();
    await expect(running).rejects.toMatchObject({ code: 'PGLITE_WORKER_EXITED' });
    await expect(client.query('select 1')).rejects.toThrow('the PGlite worker thread ended: exit code 1');
    expect(onExit).toHaveBeenCalledTimes(1);
    expect(onExit.mock.calls[0][0]).toMatchObject({ code: 'PGLITE_WORKER_EXITED' });
    await client.close();
    expect(onExit).toHaveBeenCalledTimes(1);
  });

  it('rejects ready with PGlite’s own error when it cannot start, and closes without more', async () => {
    await writeFile(join(dir, 'PG_VERSION'), '9\n');
    const client = new PGliteWorkerClient({ dataDir: dir });
    await expect(client.ready).rejects.toThrow('PGlite failed to initialize properly');
    await client.close();
    await expect(client.query('select 1')).rejects.toThrow(/closed/);
  });
});

describe('PGliteDialect over the worker client', () => {
  it('reports affected rows the way it does in-thread', async () => {
    const client = new PGliteWorkerClient();
    await client.ready;
    const db = new Kysely<{ t: { n: number } }>({ dialect: new PGliteDialect(client as unknown as PGlite) });
    try {
      await sql`create table t (n int)`.execute(db);
      const inserted = await db
        .insertInto('t')
        .values([{ n: 1 }, { n: 2 }])
        .executeTakeFirst();
      expect(inserted.numInsertedOrUpdatedRows).toBe(2n);
      expect((await db.deleteFrom('t').where('n', '=', 1).executeTakeFirst()).numDeletedRows).toBe(1n);
    } finally {
      await db.destroy();
    }
  });
});
