import { sql } from 'kysely';
import {
  ConcurrencyConflictError,
  DuplicateEventIdError,
  IdempotencyKeyConflictError,
  InvalidAppendError,
  WrongExpectedVersionError,
} from './errors';
import { EventStore } from './event-store';
import { backends, capturingLogger, newEvent, TestStore, uniqueStream, waitFor } from './store.spec-helper';
import { START_CHECKPOINT, StoredEvent } from './types';

describe.each(backends)('EventStore on $kind', (backend) => {
  let t: TestStore;
  let store: EventStore;

  beforeAll(async () => {
    t = await backend.open('event_store');
    store = new EventStore(t.database.db, { logger: capturingLogger() });
  });
  afterAll(() => t.close());

  it('appends and reads a stream back in version order', async () => {
    const stream = uniqueStream();
    const first = await store.append(stream, [newEvent('a'), newEvent('b')], {
      expectedVersion: 'no_stream',
    });
    const second = await store.append(stream, [newEvent('c')], { expectedVersion: 2 });

    expect(first).toMatchObject({ duplicate: false, nextVersion: 2 });
    expect(second.nextVersion).toBe(3);
    const events = await store.readStream(stream);
    expect(events.map((e) => [e.type, e.version])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
    expect(events).toEqual([...first.events, ...second.events]);
    expect(await store.streamVersion(stream)).toBe(3);
    expect(await store.streamVersion(uniqueStream())).toBe(0);
    expect((await store.readStream(stream, { afterVersion: 1, limit: 1 })).map((e) => e.type)).toEqual(['b']);
    expect((await store.readStream(stream, { beforeVersion: 3 })).map((e) => e.type)).toEqual(['a', 'b']);
    expect(
      (await store.readStream(stream, { afterPosition: first.events[1].position })).map((e) => e.type),
    ).toEqual(['c']);
  });

  it('keeps payload, metadata and a given timestamp as they were', async () => {
    const stream = uniqueStream();
    const payloads = [{ nested: { list: [1, 'x', null] } }, [1, 2, 3], 'just a string', null, 42];
    const timestamp = '2026-01-02T03:04:05.678Z';
    const events = payloads.map((payload) => newEvent('p', payload, timestamp));
    await store.append(stream, events, { expectedVersion: 'any' });
    const read = await store.readStream(stream);
    expect(read.map((e) => e.payload)).toEqual(payloads);
    expect(read.map((e) => e.metadata)).toEqual(events.map((e) => e.metadata));
    expect(read.map((e) => e.timestamp)).toEqual(payloads.map(() => timestamp));
    expect(read.map((e) => e.id)).toEqual(events.map((e) => e.id));

    const mixed = await store.append(stream, [newEvent('dated', {}, timestamp), newEvent('undated')], {
      expectedVersion: 5,
    });
    expect(mixed.events[0].timestamp).toBe(timestamp);
    expect(Date.parse(mixed.events[1].timestamp)).toBeGreaterThan(Date.parse(timestamp));
  });

  it('normalizes bigserial positions to numbers, whatever the driver returns', async () => {
    const stream = uniqueStream();
    const { events } = await store.append(stream, [newEvent()], { expectedVersion: 'no_stream' });
    const raw = await sql<{
      position: unknown;
    }>`select position from events where id = ${events[0].id}`.execute(t.database.db);
    expect(typeof raw.rows[0].position).toBe(backend.kind === 'postgres' ? 'string' : 'number');

    const read = [
      events[0],
      (await store.readStream(stream))[0],
      ...(await store.readAll(START_CHECKPOINT, 10_000)).events,
    ];
    for (const event of read) expect(typeof event.position).toBe('number');
    expect(typeof (await store.headPosition())).toBe('number');
    expect(await store.headPosition()).toBeGreaterThanOrEqual(events[0].position);
  });

  it('rejects an append whose expected version is stale, saying what it found', async () => {
    const stream = uniqueStream();
    await store.append(stream, [newEvent(), newEvent()], { expectedVersion: 'no_stream' });

    const stale = await store.append(stream, [newEvent()], { expectedVersion: 1 }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(WrongExpectedVersionError);
    expect(stale).toMatchObject({
      code: 'WRONG_EXPECTED_VERSION',
      retryable: true,
      streamId: stream,
      expected: 1,
      actual: 2,
    });
    await expect(store.append(stream, [newEvent()], { expectedVersion: 'no_stream' })).rejects.toMatchObject({
      expected: 'no_stream',
      actual: 2,
    });
    expect(await store.streamVersion(stream)).toBe(2);
  });

  it('lets exactly one of several racing writers with the same expected version win', async () => {
    const stream = uniqueStream();
    await store.append(stream, [newEvent()], { expectedVersion: 'no_stream' });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 8 }, () => store.append(stream, [newEvent()], { expectedVersion: 1 })),
    );

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected')) {
      expect(o.reason).toMatchObject({ code: 'WRONG_EXPECTED_VERSION', actual: 2 });
    }
    expect(await store.streamVersion(stream)).toBe(2);
  });

  it("appends every racing 'any' writer, versions contiguous", async () => {
    const stream = uniqueStream();
    const racing = new EventStore(t.database.db, { maxAttempts: 50 });
    await Promise.all(
      Array.from({ length: 10 }, () =>
        racing.append(stream, [newEvent(), newEvent()], { expectedVersion: 'any' }),
      ),
    );
    const versions = (await store.readStream(stream)).map((e) => e.version);
    expect(versions).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('appends nothing the second time for the same idempotency key, returning the first events', async () => {
    const stream = uniqueStream();
    const key = `planner:${stream}`;
    const first = await store.append(stream, [newEvent('a'), newEvent('b')], {
      expectedVersion: 'no_stream',
      idempotencyKey: key,
    });
    const head = await store.headPosition();

    const again = await store.append(stream, [newEvent('a'), newEvent('b')], {
      expectedVersion: 'no_stream',
      idempotencyKey: key,
    });
    expect(again).toEqual({ duplicate: true, events: first.events, nextVersion: 2 });
    expect(await store.headPosition()).toBe(head);
    expect(await store.readStream(stream)).toEqual(first.events);
  });

  it('treats racing appends with the same idempotency key as one append', async () => {
    const stream = uniqueStream();
    const key = `executor:${stream}`;
    const attempt = () =>
      store.append(stream, [newEvent('x'), newEvent('y')], {
        expectedVersion: 'no_stream',
        idempotencyKey: key,
      });
    const results = await Promise.all(Array.from({ length: 8 }, attempt));

    const originals = results.filter((r) => !r.duplicate);
    expect(originals).toHaveLength(1);
    for (const result of results) expect(result.events).toEqual(originals[0].events);
    expect(await store.readStream(stream)).toEqual(originals[0].events);
  });

  it('refuses an idempotency key reused for another stream', async () => {
    const key = `reused:${uniqueStream()}`;
    await store.append(uniqueStream(), [newEvent()], { expectedVersion: 'any', idempotencyKey: key });
    const error = await store
      .append(uniqueStream(), [newEvent()], { expectedVersion: 'any', idempotencyKey: key })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyKeyConflictError);
    expect(error).toMatchObject({ code: 'IDEMPOTENCY_KEY_CONFLICT', retryable: false });
  });

  it('commits a batch over several streams at once, or nothing of it', async () => {
    const [s1, s2, s3] = [uniqueStream(), uniqueStream(), uniqueStream()];
    await store.append(s3, [newEvent()], { expectedVersion: 'no_stream' });
    const head = await store.headPosition();

    const failing = store.appendBatch([
      { streamId: s1, events: [newEvent()], options: { expectedVersion: 'no_stream' } },
      {
        streamId: s2,
        events: [newEvent()],
        options: { expectedVersion: 'no_stream', idempotencyKey: `k:${s2}` },
      },
      { streamId: s3, events: [newEvent()], options: { expectedVersion: 'no_stream' } },
    ]);
    await expect(failing).rejects.toBeInstanceOf(WrongExpectedVersionError);
    expect(await store.headPosition()).toBe(head);
    expect([await store.streamVersion(s1), await store.streamVersion(s2)]).toEqual([0, 0]);

    const results = await store.appendBatch([
      { streamId: s1, events: [newEvent('one')], options: { expectedVersion: 'no_stream' } },
      {
        streamId: s2,
        events: [newEvent('two')],
        options: { expectedVersion: 'no_stream', idempotencyKey: `k:${s2}` },
      },
      { streamId: s1, events: [newEvent('three')], options: { expectedVersion: 1 } },
      {
        streamId: s2,
        events: [newEvent('ignored')],
        options: { expectedVersion: 'any', idempotencyKey: `k:${s2}` },
      },
    ]);
    expect(results.map((r) => [r.duplicate, r.events.map((e) => e.type), r.nextVersion])).toEqual([
      [false, ['one'], 1],
      [false, ['two'], 1],
      [false, ['three'], 2],
      [true, ['two'], 1],
    ]);
  });

  it('refuses to store the same event id twice without an idempotency key', async () => {
    const event = newEvent();
    await store.append(uniqueStream(), [event], { expectedVersion: 'any' });
    const error = await store
      .append(uniqueStream(), [event], { expectedVersion: 'any' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DuplicateEventIdError);
    expect(error).toMatchObject({ code: 'DUPLICATE_EVENT_ID', retryable: false });
  });

  it('rejects malformed appends before touching the database', async () => {
    await expect(store.append('', [newEvent()], { expectedVersion: 'any' })).rejects.toBeInstanceOf(
      InvalidAppendError,
    );
    await expect(
      store.append('s', [{ ...newEvent(), id: 'not-a-uuid' }], { expectedVersion: 'any' }),
    ).rejects.toMatchObject({ code: 'INVALID_APPEND' });
    await expect(store.append('s', [newEvent()], { expectedVersion: -1 })).rejects.toMatchObject({
      code: 'INVALID_APPEND',
    });
    await expect(
      store.append('s', [newEvent('t', {}, 'yesterday')], { expectedVersion: 'any' }),
    ).rejects.toMatchObject({ code: 'INVALID_APPEND' });
  });

  it('never lets an event row be updated or deleted', async () => {
    const { events } = await store.append(uniqueStream(), [newEvent()], { expectedVersion: 'any' });
    await expect(
      sql`update events set type = 'changed' where id = ${events[0].id}`.execute(t.database.db),
    ).rejects.toThrow(/append-only/);
    await expect(sql`delete from events where id = ${events[0].id}`.execute(t.database.db)).rejects.toThrow(
      /append-only/,
    );
    await expect(sql`truncate events cascade`.execute(t.database.db)).rejects.toThrow(/append-only/);
  });

  it('reads the whole log in pages, each event once, with a checkpoint after each', async () => {
    const stream = uniqueStream();
    await store.append(
      stream,
      Array.from({ length: 7 }, () => newEvent()),
      { expectedVersion: 'no_stream' },
    );
    const seen: StoredEvent[] = [];
    let checkpoint = START_CHECKPOINT;
    // An empty page means "nothing more yet": a transaction open anywhere in the cluster holds the
    // tail back until it ends. So read on until the stream is there rather than until a page is empty.
    await waitFor(async () => {
      const page = await store.readAll(checkpoint, 3);
      expect(page.checkpoints).toHaveLength(page.events.length);
      expect(page.checkpoint).toEqual(page.checkpoints[page.checkpoints.length - 1] ?? checkpoint);
      seen.push(...page.events);
      checkpoint = page.checkpoint;
      return seen.filter((e) => e.streamId === stream).length === 7;
    });
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    expect(seen.filter((e) => e.streamId === stream).map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const count = await sql<{
      n: number;
    }>`select count(*)::int as n from events where position <= ${checkpoint.position}`.execute(t.database.db);
    expect(seen).toHaveLength(count.rows[0].n);
    await expect(store.readAll(checkpoint, 0)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('orders the log by transaction id as a number, not as text', async () => {
    // Stamped by hand with tiny xids (long finished, so below any snapshot's xmin): "10" < "9" as text.
    const [a, b] = [newEvent('stamped_10'), newEvent('stamped_9')];
    for (const [event, xid] of [
      [a, '10'],
      [b, '9'],
    ] as const) {
      await sql`insert into events (id, stream_id, version, type, payload, metadata, transaction_id)
        values (${event.id}, ${uniqueStream()}, 1, ${event.type}, '{}', '{}', ${xid}::xid8)`.execute(
        t.database.db,
      );
    }
    const page = await store.readAll(START_CHECKPOINT, 2);
    expect(page.events.map((e) => e.type)).toEqual(['stamped_9', 'stamped_10']);
    expect(page.checkpoints.map((c) => c.transactionId)).toEqual(['9', '10']);
  });

  it('calls afterCommit with the new events only, and survives it throwing', async () => {
    const published: StoredEvent[][] = [];
    const publishing = new EventStore(t.database.db, {
      afterCommit: (events) => void published.push(events),
    });
    const stream = uniqueStream();
    const { events } = await publishing.append(stream, [newEvent()], {
      expectedVersion: 'no_stream',
      idempotencyKey: stream,
    });
    await publishing.append(stream, [newEvent()], { expectedVersion: 'no_stream', idempotencyKey: stream });
    expect(published).toEqual([events]);

    const logger = capturingLogger();
    const failing = new EventStore(t.database.db, {
      logger,
      afterCommit: () => Promise.reject(new Error('bus down')),
    });
    const result = await failing.append(uniqueStream(), [newEvent()], { expectedVersion: 'no_stream' });
    expect(result.duplicate).toBe(false);
    expect(logger.warnings).toHaveLength(1);
  });

  it('gives up with a retryable ConcurrencyConflictError when it keeps losing', async () => {
    const stream = uniqueStream();
    const impatient = new EventStore(t.database.db, { maxAttempts: 1 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => impatient.append(stream, [newEvent()], { expectedVersion: 'any' })),
    );
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(ConcurrencyConflictError);
    }
    expect(await store.streamVersion(stream)).toBe(outcomes.filter((o) => o.status === 'fulfilled').length);
  });
});
