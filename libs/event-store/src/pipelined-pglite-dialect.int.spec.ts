import type { Results } from '@electric-sql/pglite';
import fc from 'fast-check';
import { Kysely, sql } from 'kysely';
import { PGliteWorkerClient } from './pglite-worker-client';
import { PipelinedPGliteDialect, type OrderedPGlite } from './pipelined-pglite-dialect';

/** The worker client, noting what is sent in order and how many statements are out at once. */
class Recorder implements OrderedPGlite {
  readonly sent: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  constructor(readonly client: PGliteWorkerClient) {}

  async query<T>(text: string, params?: readonly unknown[]): Promise<Results<T>> {
    this.sent.push(text);
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      return await this.client.query<T>(text, params);
    } finally {
      this.inFlight--;
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** One caller's work: statements of its own, or a transaction of several that ends one way or another. */
type Work =
  | { kind: 'statements'; count: number; pause: Pause }
  | { kind: 'transaction'; count: number; pause: Pause; end: 'commit' | 'rollback' | 'fail' };
type Pause = 'none' | 'turn' | 'ms';

const pause = fc.constantFrom<Pause>('none', 'turn', 'ms');
const work: fc.Arbitrary<Work> = fc.oneof(
  fc.record({ kind: fc.constant('statements' as const), count: fc.integer({ min: 1, max: 4 }), pause }),
  fc.record({
    kind: fc.constant('transaction' as const),
    count: fc.integer({ min: 1, max: 4 }),
    pause,
    end: fc.constantFrom('commit' as const, 'rollback' as const, 'fail' as const),
  }),
);

async function wait(how: Pause): Promise<void> {
  if (how === 'turn') await new Promise((resolve) => setImmediate(resolve));
  if (how === 'ms') await new Promise((resolve) => setTimeout(resolve, 1));
}

class Rollback extends Error {}

/** Runs one caller's work; rows are tagged with the caller, and with the statement's number. */
async function perform(db: Kysely<unknown>, caller: number, item: Work): Promise<'done' | 'undone'> {
  const insert = (into: Kysely<unknown>, n: number) =>
    sql`insert into pipelined (caller, n, xid) values (${caller}, ${n}, pg_current_xact_id()::text) -- caller ${sql.raw(String(caller))}`.execute(
      into,
    );
  if (item.kind === 'statements') {
    for (let n = 1; n <= item.count; n++) {
      await insert(db, n);
      await wait(item.pause);
    }
    return 'done';
  }
  try {
    await db.transaction().execute(async (trx) => {
      for (let n = 1; n <= item.count; n++) {
        await insert(trx, n);
        await wait(item.pause);
      }
      if (item.end === 'rollback') throw new Rollback();
      if (item.end === 'fail') await sql`select 1 / 0 -- caller ${sql.raw(String(caller))}`.execute(trx);
    });
    return 'done';
  } catch (error) {
    if (item.end === 'commit') throw error;
    return 'undone';
  }
}

describe('PipelinedPGliteDialect (PGlite in its worker thread)', () => {
  let recorder: Recorder;
  let db: Kysely<unknown>;

  beforeAll(async () => {
    const client = new PGliteWorkerClient();
    await client.ready;
    recorder = new Recorder(client);
    db = new Kysely({ dialect: new PipelinedPGliteDialect(recorder) });
    await sql`create table pipelined (caller int not null, n int not null, xid text not null)`.execute(db);
  });

  afterAll(() => db.destroy());

  it('keeps every transaction to itself while statements outside transactions are pipelined', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(work, { minLength: 1, maxLength: 12 }), async (works) => {
        await sql`truncate pipelined`.execute(db);
        recorder.sent.length = 0;
        const outcomes = await Promise.all(works.map((item, caller) => perform(db, caller, item)));
        const { rows } = await sql<{ caller: number; n: number; xid: string }>`
          select caller, n, xid from pipelined order by caller, n`.execute(db);
        // Every statement outside a transaction is its own; none slipped into another's transaction
        // (it would have been undone with it, or have failed in an aborted one, or share its xid).
        const expected = works.flatMap((item, caller) =>
          outcomes[caller] === 'done' ? Array.from({ length: item.count }, (_, i) => [caller, i + 1]) : [],
        );
        expect(rows.map((row) => [row.caller, row.n])).toEqual(expected);
        const xids = new Map<string, Set<number>>();
        for (const row of rows) xids.set(row.xid, (xids.get(row.xid) ?? new Set()).add(row.caller));
        for (const callers of xids.values()) expect(callers.size).toBe(1);
        for (const [caller, item] of works.entries()) {
          const mine = new Set(rows.filter((row) => row.caller === caller).map((row) => row.xid));
          if (outcomes[caller] === 'done')
            expect(mine.size).toBe(item.kind === 'transaction' ? 1 : item.count);
        }
        // Between a transaction's BEGIN and its end, only its own statements were sent.
        const log = recorder.sent.splice(0);
        for (const [caller, item] of works.entries()) {
          if (item.kind !== 'transaction') continue;
          const own = log
            .map((text, i) => (text.endsWith(`-- caller ${caller}`) ? i : -1))
            .filter((i) => i >= 0);
          const [first, last] = [own[0], own.at(-1) ?? own[0]];
          expect(log[first - 1]).toBe('begin');
          expect(log[last + 1]).toBe(item.end === 'commit' ? 'commit' : 'rollback');
          expect(last - first + 1).toBe(own.length);
        }
        expect(outcomes).toEqual(
          works.map((item) => (item.kind === 'transaction' && item.end !== 'commit' ? 'undone' : 'done')),
        );
      }),
      { numRuns: 40 },
    );
  });

  it('sends statements without waiting for the ones before them to come back, and runs them in order', async () => {
    recorder.maxInFlight = 0;
    const results = await Promise.all([
      sql<{ at: number }>`select 1 as at from pg_sleep(0.05)`.execute(db),
      ...Array.from({ length: 5 }, (_, i) => sql<{ at: number }>`select ${i + 2}::int as at`.execute(db)),
    ]);
    expect(results.map((result) => result.rows[0].at)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(recorder.maxInFlight).toBe(6);
  });
});
