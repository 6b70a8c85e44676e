import { appendStatement } from './append-statement';
import type { FlexDatabase } from './database';
import { EventStore } from './event-store';
import {
  deferred,
  newEvent,
  postgresBackend,
  tailAll as tailAllOf,
  TestStore,
  uniqueStream,
  waitFor,
} from './store.spec-helper';
import { Checkpoint, START_CHECKPOINT, StoredEvent } from './types';

/**
 * The sequence-gap problem: positions are handed out at insert, visibility comes at commit. A
 * transaction that inserts first and commits last leaves a lower position appearing after a higher
 * one was read. These run on real Postgres, with the writers on separate connections.
 */
describe('readAll on postgres: late commits are never skipped', () => {
  let t: TestStore;
  let second: FlexDatabase;
  let store: EventStore;

  beforeAll(async () => {
    t = await postgresBackend.open('read_all_gaps');
    second = await t.connect!();
    store = new EventStore(t.database.db);
  });
  afterAll(() => t.close());

  const tailAll = (from: Checkpoint) => tailAllOf(store, from);

  it('sees an event that took a lower position but committed after a higher one, in order, once', async () => {
    let { checkpoint } = await tailAll(START_CHECKPOINT);
    const inserted = deferred();
    const commit = deferred();
    const early = newEvent('inserted_first_committed_last');
    const late = newEvent('inserted_second_committed_first');

    // T1, on its own connection: insert, then hold the transaction open.
    const t1 = second.db.transaction().execute(async (trx) => {
      await appendStatement(
        trx,
        { streamId: uniqueStream(), events: [early], options: { expectedVersion: 'any' } },
        false,
      );
      inserted.resolve();
      await commit.promise;
    });
    await inserted.promise;
    // T2 inserts after T1 (higher position) and commits while T1 is still open.
    const t2 = await store.append(uniqueStream(), [late], { expectedVersion: 'any' });

    const during = await tailAll(checkpoint);
    expect(during.events).toEqual([]); // T2's event waits behind the open T1, rather than jumping it
    checkpoint = during.checkpoint;

    commit.resolve();
    await t1;
    // Polls: a transaction of this database (an auto-analyze) may hold the horizon for a moment.
    const after: StoredEvent[] = [];
    await waitFor(async () => {
      const page = await tailAll(checkpoint);
      after.push(...page.events);
      checkpoint = page.checkpoint;
      return after.length >= 2;
    });
    expect(after.map((e) => e.id)).toEqual([early.id, late.id]);
    expect(after[0].position).toBeLessThan(t2.events[0].position);
    expect((await tailAll(checkpoint)).events).toEqual([]);
  });

  it('delivers every event exactly once to a tailer running through many concurrent appends', async () => {
    let { checkpoint } = await tailAll(START_CHECKPOINT);
    const writers = [t.database, second].map((db) => new EventStore(db.db));
    const total = 300;
    const appended: string[] = [];
    const appending = Promise.all(
      Array.from({ length: total }, async (_, i) => {
        const event = newEvent('burst', { i });
        await writers[i % 2].append(uniqueStream(), [event], { expectedVersion: 'no_stream' });
        appended.push(event.id);
      }),
    );
    const seen: string[] = [];
    let last: Checkpoint = checkpoint;
    await waitFor(async () => {
      const page = await tailAll(checkpoint);
      seen.push(...page.events.map((e) => e.id));
      checkpoint = page.checkpoint;
      expect(compare(checkpoint, last)).toBeGreaterThanOrEqual(0);
      last = checkpoint;
      return seen.length >= total;
    }, 30_000);
    await appending;

    expect(new Set(seen).size).toBe(seen.length);
    expect(new Set(seen)).toEqual(new Set(appended));
    expect((await tailAll(checkpoint)).events).toEqual([]);
  });
});

function compare(a: Checkpoint, b: Checkpoint): number {
  const tx = BigInt(a.transactionId) - BigInt(b.transactionId);
  return tx === 0n ? a.position - b.position : tx > 0n ? 1 : -1;
}
