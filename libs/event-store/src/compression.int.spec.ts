import { sql, type Kysely } from 'kysely';
import { offersLz4 } from './compression';
import { EventStore } from './event-store';
import { backends, newEvent, type TestStore } from './store.spec-helper';

describe.each(backends)('event payload compression on $kind', (backend) => {
  let t: TestStore;
  beforeAll(async () => {
    t = await backend.open('compression');
  });
  afterAll(() => t.close());

  it('is LZ4 exactly where the server offers it, and large payloads read back whole', async () => {
    const db = t.database.db as unknown as Kysely<unknown>;
    const { rows } = await sql<{ method: string }>`
      select attcompression::text as method from pg_attribute
      where attrelid = 'events'::regclass and attname = 'payload'`.execute(db);
    expect(rows[0].method).toBe((await offersLz4(db)) ? 'l' : '');
    const store = new EventStore(t.database.db);
    const payload = {
      nodes: Array.from({ length: 80 }, (_, i) => ({ id: `n${i}`, text: `node ${i} `.repeat(30) })),
    };
    const [event] = (
      await store.append('stream-compressed', [newEvent('planned', payload)], {
        expectedVersion: 'no_stream',
      })
    ).events;
    expect(JSON.stringify(payload).length).toBeGreaterThan(16_000);
    const [read] = await store.readStream('stream-compressed');
    expect(read).toEqual(event);
    expect(read.payload).toEqual(payload);
  });
});
