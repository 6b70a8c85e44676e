import { Kysely, Migration, sql, Transaction } from 'kysely';
import { loadCheckpoint } from './checkpoints';
import { ProjectionFailedError } from './errors';
import { EventStore } from './event-store';
import type { Projection } from './projection';
import { ProjectionRunner } from './projection-runner';
import { backends, capturingLogger, newEvent, TestStore, uniqueStream, waitFor } from './store.spec-helper';
import type { StoredEvent } from './types';

const migrations: Record<string, Migration> = {
  '2026112290_spec_stream_counts': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('spec_stream_counts')
        .addColumn('stream_id', 'text', (c) => c.primaryKey())
        .addColumn('events', 'integer', (c) => c.notNull())
        .addColumn('types', 'text', (c) => c.notNull())
        .addColumn('last_position', 'bigint', (c) => c.notNull())
        .addColumn('last_at', 'timestamptz', (c) => c.notNull())
        .execute();
      // Primary key on the event id: applying an event twice fails loudly.
      await db.schema
        .createTable('spec_applied')
        .addColumn('event_id', 'uuid', (c) => c.primaryKey())
        .execute();
      await db.schema
        .createTable('spec_seen')
        .addColumn('projection', 'text', (c) => c.notNull())
        .addColumn('event_id', 'uuid', (c) => c.notNull())
        .addPrimaryKeyConstraint('spec_seen_pk', ['projection', 'event_id'])
        .execute();
    },
  },
};

/** The spec's read-model tables: added to the store's type with withTables, as a read model does. */
type SpecTables = {
  spec_stream_counts: {
    stream_id: string;
    events: number;
    types: string;
    last_position: string | number;
    last_at: Date;
  };
  spec_applied: { event_id: string };
  spec_seen: { projection: string; event_id: string };
};

/** Records every event it sees under its name (twice fails loudly); fails on the ids in `failOn`. */
function seen(name: string, failOn: Set<string>): Projection {
  return {
    name,
    async apply(trx: Transaction<any>, event: StoredEvent) {
      await trx.insertInto('spec_seen').values({ projection: name, event_id: event.id }).execute();
      if (failOn.has(event.id)) throw new Error(`poisoned ${event.id}`);
    },
    async reset(trx: Transaction<any>) {
      await trx.deleteFrom('spec_seen').where('projection', '=', name).execute();
    },
  };
}

/** Counts events per stream. Fails on the event ids in `failOn`, after it has written. */
function streamCounts(failOn: Set<string>): Projection {
  return {
    name: 'spec_stream_counts',
    handles: ['counted', 'poison'],
    async apply(trx: Transaction<any>, event: StoredEvent) {
      await trx.insertInto('spec_applied').values({ event_id: event.id }).execute();
      await trx
        .insertInto('spec_stream_counts')
        .values({
          stream_id: event.streamId,
          events: 1,
          types: event.type,
          last_position: event.position,
          last_at: event.timestamp,
        })
        .onConflict((oc) =>
          oc.column('stream_id').doUpdateSet({
            events: sql`spec_stream_counts.events + 1`,
            types: sql`spec_stream_counts.types || ',' || ${event.type}`,
            last_position: event.position,
            last_at: event.timestamp,
          }),
        )
        .execute();
      if (failOn.has(event.id)) throw new Error(`poisoned ${event.id}`);
    },
    async reset(trx: Transaction<any>) {
      await trx.deleteFrom('spec_applied').execute();
      await trx.deleteFrom('spec_stream_counts').execute();
    },
  };
}

describe.each(backends)('ProjectionRunner on $kind', (backend) => {
  let t: TestStore;
  let store: EventStore;
  let runner: ProjectionRunner;
  const failOn = new Set<string>();
  const projection = streamCounts(failOn);

  beforeAll(async () => {
    t = await backend.open('projection_runner', migrations);
    store = new EventStore(t.database.db);
    runner = new ProjectionRunner(t.database.db, store, [projection], {
      batchSize: 50,
      pollMs: 60_000,
      logger: capturingLogger(),
    });
  });
  afterAll(async () => {
    await runner.stop();
    await t.close();
  });

  const specDb = () => t.database.db.withTables<SpecTables>();
  const rows = () => specDb().selectFrom('spec_stream_counts').selectAll().orderBy('stream_id').execute();
  const applied = async () =>
    Number(
      (await sql<{ n: number }>`select count(*)::int as n from spec_applied`.execute(t.database.db)).rows[0]
        .n,
    );
  const count = async (where = sql`true`) =>
    Number(
      (await sql<{ n: number }>`select count(*)::int as n from events where ${where}`.execute(t.database.db))
        .rows[0].n,
    );
  /**
   * Catches up until `done`. One catchUp can come back short: a transaction open anywhere in the
   * cluster (another spec's) holds the gap-safe tail back until it ends. Returns events processed.
   */
  async function catchUpUntil(done: () => Promise<boolean>, runners = [runner]): Promise<number> {
    let processed = 0;
    await waitFor(async () => {
      for (const r of runners) processed += await r.catchUp();
      return done();
    });
    return processed;
  }
  const caughtUp = async () => (await applied()) === (await count(sql`type in ('counted', 'poison')`));

  it('applies the events it handles, skips the rest, and checkpoints where the log ends', async () => {
    const stream = uniqueStream();
    const { events } = await store.append(
      stream,
      [newEvent('counted'), newEvent('ignored'), newEvent('counted')],
      { expectedVersion: 'no_stream' },
    );

    expect(await catchUpUntil(caughtUp)).toBe(3);
    expect(await runner.catchUp()).toBe(0);
    const row = (await rows()).find((r) => r.stream_id === stream);
    expect(row).toMatchObject({ events: 2, types: 'counted,counted' });
    expect((await loadCheckpoint(t.database.db, projection.name)).position).toBe(events[2].position);
  });

  it('rolls back a failing batch: neither its writes nor its checkpoint survive', async () => {
    const stream = uniqueStream();
    const good = newEvent('counted');
    const poison = newEvent('poison');
    await store.append(stream, [good, poison], { expectedVersion: 'no_stream' });
    failOn.add(poison.id);
    const before = {
      rows: await rows(),
      applied: await applied(),
      checkpoint: await loadCheckpoint(t.database.db, projection.name),
    };

    let error: unknown;
    await waitFor(
      async () =>
        (error = await runner.catchUp().then(
          () => undefined,
          (e: unknown) => e,
        )) !== undefined,
    );
    expect(error).toBeInstanceOf(ProjectionFailedError);
    expect(error).toMatchObject({ code: 'PROJECTION_FAILED', projection: projection.name });
    expect({
      rows: await rows(),
      applied: await applied(),
      checkpoint: await loadCheckpoint(t.database.db, projection.name),
    }).toEqual(before);

    failOn.delete(poison.id);
    expect(await catchUpUntil(caughtUp)).toBe(2);
    expect((await rows()).find((r) => r.stream_id === stream)).toMatchObject({
      events: 2,
      types: 'counted,poison',
    });
  });

  it('never applies an event twice when two runners share the database', async () => {
    const other = backend.kind === 'postgres' ? (await t.connect!()).db : t.database.db;
    const runners = [
      runner,
      new ProjectionRunner(other, new EventStore(other), [streamCounts(failOn)], { batchSize: 7 }),
    ];
    await catchUpUntil(caughtUp);
    const start = await applied();
    const total = 120;
    let appendsDone = false;
    const appending = (async () => {
      for (let i = 0; i < total; i += 10) {
        await Promise.all(
          Array.from({ length: 10 }, () =>
            store.append(uniqueStream(), [newEvent('counted')], { expectedVersion: 'no_stream' }),
          ),
        );
      }
      appendsDone = true;
    })();
    const processed = [0, 0];
    await Promise.all(
      runners.map(async (r, i) => {
        while (!appendsDone) processed[i] += await r.catchUp();
      }),
    );
    await appending;
    await waitFor(async () => {
      for (const [i, r] of runners.entries()) processed[i] += await r.catchUp();
      return caughtUp();
    });
    expect(await applied()).toBe(start + total);
    expect(processed[0] + processed[1]).toBe(total);
  });

  it('catches up projections standing together, and a failing one holds up no other', async () => {
    const failing = new Set<string>();
    const [a, b] = [`spec_a_${backend.kind}`, `spec_b_${backend.kind}`];
    const pair = new ProjectionRunner(t.database.db, store, [seen(a, failing), seen(b, new Set())], {
      batchSize: 5,
    });
    const seenBy = async (name: string) =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from spec_seen where projection = ${name}`.execute(t.database.db)
        ).rows[0].n,
      );
    const allSeen = async (name: string) => (await seenBy(name)) === (await count());
    const stream = uniqueStream();
    await store.append(stream, [newEvent('counted'), newEvent('ignored')], { expectedVersion: 'no_stream' });
    await catchUpUntil(async () => (await allSeen(a)) && (await allSeen(b)), [pair]);
    expect(await loadCheckpoint(t.database.db, a)).toEqual(await loadCheckpoint(t.database.db, b));

    const poison = newEvent('counted');
    failing.add(poison.id);
    await store.append(stream, [newEvent('counted'), poison, newEvent('counted')], { expectedVersion: 2 });
    const aBefore = { seen: await seenBy(a), checkpoint: await loadCheckpoint(t.database.db, a) };
    let error: unknown;
    await waitFor(async () => {
      error = await pair.catchUp().then(
        () => undefined,
        (e: unknown) => e,
      );
      return error !== undefined && (await allSeen(b));
    });
    expect(error).toMatchObject({ code: 'PROJECTION_FAILED', projection: a });
    expect({ seen: await seenBy(a), checkpoint: await loadCheckpoint(t.database.db, a) }).toEqual(aBefore);

    failing.clear();
    await catchUpUntil(async () => (await allSeen(a)) && (await allSeen(b)), [pair]);
    expect(await loadCheckpoint(t.database.db, a)).toEqual(await loadCheckpoint(t.database.db, b));
  });

  it('rebuilds from position 0 into identical rows', async () => {
    await catchUpUntil(caughtUp);
    const original = await rows();
    const checkpoint = await loadCheckpoint(t.database.db, projection.name);
    await specDb().deleteFrom('spec_stream_counts').where('stream_id', '=', original[0].stream_id).execute();
    await specDb().updateTable('spec_stream_counts').set({ events: 999 }).execute();

    const total = await count();
    await waitFor(async () => (await runner.rebuild(projection.name)) === total);
    expect(await rows()).toEqual(original);
    expect(await loadCheckpoint(t.database.db, projection.name)).toEqual(checkpoint);
    await expect(runner.rebuild('nope')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('runs in the background once started, and catches up early when woken', async () => {
    runner.start();
    const stream = uniqueStream();
    await store.append(stream, [newEvent('counted')], { expectedVersion: 'no_stream' });
    // Woken until the row is there, long before the 60 s poll: a catch-up stops at the gap-safe
    // horizon, which another suite's open transaction on the shared server can hold behind the
    // event for a while (a catch-up that then finds nothing waits for the next wake or poll).
    await waitFor(async () => {
      runner.wake();
      return (await rows()).some((r) => r.stream_id === stream);
    });
    await runner.stop();
  });
});
