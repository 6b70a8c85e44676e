import { loadCheckpoint, saveCheckpoint } from './checkpoints';
import { listDeadLetters, recordDeadLetter } from './dead-letters';
import { createEventLog } from './event-log';
import { EventStore } from './event-store';
import { backends, newEvent, TestStore, uniqueStream, waitFor } from './store.spec-helper';
import { START_CHECKPOINT } from './types';

describe.each(backends)('checkpoints, dead letters and the event log on $kind', (backend) => {
  let t: TestStore;
  let store: EventStore;

  beforeAll(async () => {
    t = await backend.open('checkpoints');
    store = new EventStore(t.database.db);
  });
  afterAll(() => t.close());

  it('saves and loads checkpoints, START when there is none, in or out of a transaction', async () => {
    expect(await loadCheckpoint(t.database.db, 'nobody')).toEqual(START_CHECKPOINT);
    await saveCheckpoint(t.database.db, 'bus:planner', { transactionId: '12345678901234', position: 42 });
    await t.database.db
      .transaction()
      .execute((trx) => saveCheckpoint(trx, 'bus:planner', { transactionId: '12345678901235', position: 7 }));
    expect(await loadCheckpoint(t.database.db, 'bus:planner')).toEqual({
      transactionId: '12345678901235',
      position: 7,
    });
    await expect(
      saveCheckpoint(t.database.db, 'x', { transactionId: 'abc', position: 1 }),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('records a dead letter once per consumer and event, and lists them', async () => {
    const { events } = await store.append(uniqueStream(), [newEvent('plan_requested', { big: [1, 2, 3] })], {
      expectedVersion: 'no_stream',
    });
    const dead = { consumer: 'planner', event: events[0], deliveryCount: 5, reason: 'max_deliver' };
    await recordDeadLetter(t.database.db, dead);
    await recordDeadLetter(t.database.db, { ...dead, deliveryCount: 6 });
    await recordDeadLetter(t.database.db, { ...dead, consumer: 'validator', reason: 'termed: bad payload' });

    const planner = await listDeadLetters(t.database.db, { consumer: 'planner' });
    expect(planner).toEqual([{ ...dead, id: expect.any(Number), createdAt: expect.any(String) }]);
    expect((await listDeadLetters(t.database.db)).map((d) => d.consumer)).toEqual(['planner', 'validator']);
  });

  it('gives the bus a log to tail and a place for its checkpoints', async () => {
    const log = createEventLog(store, t.database.db);
    const { events } = await store.append(uniqueStream(), [newEvent(), newEvent()], {
      expectedVersion: 'no_stream',
    });
    let page = await log.readAll(START_CHECKPOINT, 100_000);
    // Polls: a transaction open elsewhere in the cluster may hold the tail back for a moment.
    await waitFor(
      async () =>
        (page = await log.readAll(START_CHECKPOINT, 100_000)).events.length > 0 &&
        page.events[page.events.length - 1].id === events[1].id,
    );
    expect(page.events.slice(-2)).toEqual(events);
    expect(page.checkpoints).toHaveLength(page.events.length);
    await log.saveCheckpoint('bus:gateway', page.checkpoints[page.checkpoints.length - 2]);
    const resumed = await log.readAll(await log.loadCheckpoint('bus:gateway'), 10);
    expect(resumed.events).toEqual([events[1]]);
  });
});
