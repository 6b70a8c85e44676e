import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@flex/testing';
import {
  envelopeWithPolicies,
  startAgents,
  startRunEndsFlex,
  type RunEndsFlex,
  ended,
} from './test-support/run-ends.harness';

/**
 * Flex on a Postgres server it shares: a transaction left open in another database of the server (a
 * report, a dump, another application's) does not stall it. Every tail of the store (the bus, the
 * read models, the registry's capabilities) waited on any open transaction of the server before; a
 * planner then saw no capabilities and failed the run. Here the embedded Flex on Postgres, with its
 * store-backed bus, starts and runs the sample to its end while one is open throughout.
 */
describe('a transaction open in another database of the server', () => {
  let own: TestDatabase;
  let other: TestDatabase;
  let foreign: Client;
  let held: string;
  let h: RunEndsFlex;
  let stopAgents: () => Promise<void>;

  beforeAll(async () => {
    other = await createTestDatabase('foreign_tx_other');
    foreign = new Client({ connectionString: other.url });
    await foreign.connect();
    await foreign.query('begin');
    held = (await foreign.query<{ xid: string }>('select pg_current_xact_id()::text as xid')).rows[0].xid;
    own = await createTestDatabase('foreign_tx_flex');
    h = await startRunEndsFlex({ FLEX_DATABASE_URL: own.url });
    stopAgents = await startAgents(h.flex);
  }, 90_000);

  afterAll(async () => {
    await stopAgents?.();
    await h?.close();
    await foreign?.end();
    await own?.drop();
    await other?.drop();
  });

  it('does not hold back a run: it completes, and its detail reads completed at once', async () => {
    const run = await h.client.start(envelopeWithPolicies());
    const frames = await ended(run);
    const last = frames[frames.length - 1];
    expect(last.type).toBe('complete');
    // No polling: the gateway's read-your-writes wait reaches the run's last event.
    const detail = (await h.client.json('GET', `/api/v1/flex/runs/${run.runId}`)).body;
    expect(detail.run).toMatchObject({ status: 'completed', lastPosition: last.position });
    // The other database's transaction stayed open, with its xid, the whole time.
    const still = await foreign.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
    expect(still.rows[0].xid).toBe(held);
  }, 90_000);
});
