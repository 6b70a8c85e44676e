import { createTestDatabase, type TestDatabase } from '@flex/testing';
import fc from 'fast-check';
import { sql } from 'kysely';
import { Client } from 'pg';
import { appendStatement } from './append-statement';
import { createDatabase, type FlexDatabase } from './database';
import { EventStore } from './event-store';
import {
  newEvent,
  postgresBackend,
  tailAll as tailAllOf,
  TestStore,
  uniqueStream,
  waitFor,
} from './store.spec-helper';
import type { Checkpoint, NewEvent, StoredEvent } from './types';

/**
 * The gap-safe tail's horizon (`flex_events_horizon`, migration 2026123101): a transaction of this
 * database that may still write events holds the tail back; one open in another database of the
 * same server, which cannot write here, does not. On real Postgres, every transaction on its own
 * connection.
 */
describe('readAll on postgres: only this database’s transactions hold the tail back', () => {
  let t: TestStore;
  let store: EventStore;
  let other: TestDatabase;
  const sessions: Session[] = [];
  const foreign: Client[] = [];

  beforeAll(async () => {
    t = await postgresBackend.open('read_all_horizon');
    store = new EventStore(t.database.db);
    other = await createTestDatabase('read_all_horizon_other');
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await Promise.all(foreign.map((c) => c.end()));
    await t.close();
    await other.drop();
  });

  /** A connection of this database on which a test opens, writes in and ends a transaction, step by step. */
  async function session(): Promise<Session> {
    const opened = new Session(await createDatabase({ url: urlOf(t), poolSize: 1 }));
    sessions.push(opened);
    return opened;
  }
  /**
   * A transaction with an xid, open in the other database until the test ends, on one of two
   * connections (the older one's transaction is committed to make room: the connections are few).
   */
  async function foreignTransaction(): Promise<string> {
    let client: Client;
    if (foreign.length < 2) {
      client = new Client({ connectionString: other.url });
      await client.connect();
    } else {
      client = foreign.shift() as Client;
      await client.query('commit');
    }
    foreign.push(client);
    await client.query('begin');
    return (await client.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0].xid;
  }

  const tailAll = (from: Checkpoint) => tailAllOf(store, from, 50);
  const end = async () => (await tailAll({ transactionId: '0', position: 0 })).checkpoint;

  it('a transaction open in another database does not hold back what commits here', async () => {
    const from = await end();
    const held = await foreignTransaction();
    const event = newEvent('while_another_database_waits');
    const appended = await store.append(uniqueStream(), [event], { expectedVersion: 'no_stream' });
    const tail = await tailAll(from);
    expect(tail.events.map((e) => e.id)).toEqual([event.id]);
    // The foreign transaction is older than the event's, and still open: the xmin alone would wait on it.
    const [{ xmin }] = (
      await sql<{ xmin: string }>`select pg_snapshot_xmin(pg_current_snapshot())::text as xmin`.execute(
        t.database.db,
      )
    ).rows;
    expect(BigInt(xmin)).toBeLessThanOrEqual(BigInt(held));
    expect(BigInt(tail.checkpoint.transactionId)).toBeGreaterThan(BigInt(held));
    expect(tail.checkpoint.position).toBe(appended.events[0].position);
  });

  it('a transaction of this database holds the tail back from its first write, events or not', async () => {
    await foreignTransaction();
    const from = await end();
    const s = await session();
    await s.begin();
    await s.takeXid(); // a write elsewhere first: it has an xid, and no event yet
    const later = newEvent('committed_meanwhile');
    await store.append(uniqueStream(), [later], { expectedVersion: 'no_stream' });
    expect((await tailAll(from)).events).toEqual([]);
    const early = newEvent('written_late_by_the_older_transaction');
    await s.append(early);
    await s.commit();
    const tail = await tailAll(from);
    // The older transaction's event comes first, though its position is higher: nothing was skipped.
    expect(tail.events.map((e) => e.id)).toEqual([early.id, later.id]);
    expect(tail.events[0].position).toBeGreaterThan(tail.events[1].position);
  });

  /**
   * Model-based, over generated interleavings of transactions in this database (which write events,
   * commit or roll back) and in another (which take an xid and stay open), and tail reads between:
   * - safe: the tail returns only committed events, each once, in (xid, position) order, and never
   *   one past an event that commits later (any such event would be missing at the end);
   * - live: whenever no transaction of this database is open, the tail returns every event committed,
   *   however many transactions of the other database stay open.
   */
  it('never skips or repeats an event, and waits only on this database (generated interleavings)', async () => {
    const locals = [await session(), await session(), await session()];
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 4, maxLength: 30, size: 'medium' }), async (steps) => {
        const committed = new Set<string>();
        const pending = new Map<Session, NewEvent[]>();
        const delivered: StoredEvent[] = [];
        const order: Array<[bigint, number]> = [];
        let checkpoint = await end();
        const read = async () => {
          const page = await tailAll(checkpoint);
          for (const event of page.events) expect(committed.has(event.id)).toBe(true);
          delivered.push(...page.events);
          checkpoint = page.checkpoint;
        };
        /**
         * Live: with nothing of this database open, reads soon return all that committed. Soon, not
         * at once: an auto-analyze of this database takes an xid for a moment, and a transaction of
         * another database that ends between a read's snapshot and its look at pg_stat_activity
         * counts as this one's for that read (stale is safe: it only lowers the horizon).
         */
        const readAll = () =>
          waitFor(async () => {
            if (delivered.length < committed.size) await read();
            return delivered.length === committed.size;
          }, 5_000);
        for (const step of steps) {
          const s = locals[step.session];
          switch (step.kind) {
            case 'write': {
              if (!s.open) await s.begin();
              const event = newEvent('generated');
              await s.append(event);
              pending.set(s, [...(pending.get(s) ?? []), event]);
              break;
            }
            case 'xid':
              if (!s.open) await s.begin();
              await s.takeXid();
              break;
            case 'end':
              if (!s.open) break;
              if (step.commit) {
                await s.commit();
                for (const event of pending.get(s) ?? []) committed.add(event.id);
              } else await s.rollback();
              pending.delete(s);
              break;
            case 'append': {
              const event = newEvent('autocommit');
              await store.append(uniqueStream(), [event], { expectedVersion: 'no_stream' });
              committed.add(event.id);
              break;
            }
            case 'foreign':
              await foreignTransaction();
              break;
            case 'tail':
              await read();
              // Nothing of this database open: all of it, though the other's transactions stay open.
              if (!locals.some((l) => l.open)) await readAll();
              break;
          }
        }
        for (const s of locals) if (s.open) await s.rollback();
        pending.clear();
        await read();
        await readAll();
        for (const event of delivered) order.push(await xidOf(event));
        expect(new Set(delivered.map((e) => e.id)).size).toBe(delivered.length);
        expect(delivered.length).toBe(committed.size);
        for (let i = 1; i < order.length; i++) expect(compare(order[i - 1], order[i])).toBeLessThan(0);
      }),
      { numRuns: 50 },
    );
  }, 120_000);

  async function xidOf(event: StoredEvent): Promise<[bigint, number]> {
    const row = await t.database.db
      .selectFrom('events')
      .select(sql<string>`transaction_id::text`.as('xid'))
      .where('id', '=', event.id)
      .executeTakeFirstOrThrow();
    return [BigInt(row.xid), event.position];
  }

  it('an event held back by this database’s transaction comes once it commits, the other’s still open', async () => {
    await foreignTransaction();
    const from = await end();
    const s = await session();
    await s.begin();
    const event = newEvent('held_then_committed');
    await s.append(event);
    const seen: StoredEvent[] = [];
    const tailing = waitFor(async () => {
      seen.push(...(await tailAll(from)).events);
      return seen.length > 0;
    });
    await s.commit();
    await tailing;
    expect(seen.map((e) => e.id)).toEqual([event.id]);
  });
});

type Step =
  | { kind: 'write' | 'xid'; session: number }
  | { kind: 'end'; session: number; commit: boolean }
  | { kind: 'append' | 'foreign' | 'tail'; session: number };

const session = fc.nat(2);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('write' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('xid' as const), session }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('end' as const), session, commit: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('append' as const), session }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('foreign' as const), session }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('tail' as const), session }) },
);

/** One connection (a pool of one), so a transaction begun on it spans the statements that follow. */
class Session {
  open = false;
  constructor(private readonly database: FlexDatabase) {}

  async begin(): Promise<void> {
    await sql`begin`.execute(this.database.db);
    this.open = true;
  }
  async takeXid(): Promise<void> {
    await sql`select pg_current_xact_id()`.execute(this.database.db);
  }
  async append(event: NewEvent): Promise<void> {
    const done = await appendStatement(
      this.database.db,
      { streamId: uniqueStream(), events: [event], options: { expectedVersion: 'no_stream' } },
      false,
    );
    if (done === 'lost_key_race') throw new Error('no key was given: no race to lose');
  }
  async commit(): Promise<void> {
    await sql`commit`.execute(this.database.db);
    this.open = false;
  }
  async rollback(): Promise<void> {
    await sql`rollback`.execute(this.database.db);
    this.open = false;
  }
  async close(): Promise<void> {
    if (this.open) await this.rollback();
    await this.database.close();
  }
}

function urlOf(t: TestStore): string {
  if (!t.url) throw new Error('a postgres test store has a url');
  return t.url;
}

function compare(a: [bigint, number], b: [bigint, number]): number {
  return a[0] === b[0] ? a[1] - b[1] : a[0] < b[0] ? -1 : 1;
}
