import { randomUUID } from 'node:crypto';
import { createDatabase, EventStore, type FlexDatabase } from '@flex/event-store';
import { waitFor, type FlexClient } from '@flex/testing';
import { sql } from 'kysely';
import { chaosCluster, type ChaosCluster } from './chaos-cluster';
import { chaosNumber, reconcile, report } from './chaos-support';
import { awaitEndings, submitRun, writerEnvelope, type Submitted } from './process-chaos';

const RUNS = chaosNumber('FLEX_CHAOS_PG_RUNS', { full: 60, ci: 6 });
const DOWN_MS = chaosNumber('FLEX_CHAOS_PG_DOWN_MS', { full: 5_000, ci: 2_000 });

/**
 * Postgres restarted mid-run (issue 16 point 3): a throwaway Postgres of this test's own (never the
 * machine's shared one) is stopped as a crash stops it (`pg_ctl -m immediate`) while runs are under
 * way and appends are being made, then started again on the same port and data directory. Every
 * append either committed or was reported to its caller as an error (none answered ok and then
 * missing); runs submitted while it is down are refused, not lost; the services reconnect by
 * themselves, and every run accepted completes.
 */
describe('chaos: Postgres restarted mid-run', () => {
  let chaos: ChaosCluster;
  const logs = () => chaos.logs();

  beforeAll(async () => {
    chaos = await chaosCluster();
  }, 300_000);

  it(`runs in flight and appends under way while Postgres is down ${DOWN_MS} ms: nothing lost, every accepted run completes`, async () => {
    const { cluster, pg, db } = chaos;
    const client = cluster.client(0);
    const appender = startAppender(cluster.databaseUrl);
    const before = await Promise.all(Array.from({ length: RUNS }, () => submitRun(client, writerEnvelope())));
    expect(before.filter((s) => s.status !== 200)).toEqual([]);
    const accepted = before.map((s) => s.runId!);
    // Crash while the runs are under way: each has started a node.
    await waitFor(async () => (await nodeStarts(db, accepted)) >= RUNS, 60_000, logs);
    const crashedAt = Date.now();
    await pg.crash();
    const during = await Promise.all(
      Array.from({ length: 3 }, () => submitRun(client, writerEnvelope(), 10_000)),
    );
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, crashedAt + DOWN_MS - Date.now())));
    await pg.revive();
    const revivedAt = Date.now();
    const after = await submitAfterRevival(client, logs);
    const appends = await appender.stop();
    accepted.push(...[...during, ...after].flatMap((s) => (s.runId ? [s.runId] : [])));
    const ended = await awaitEndings(db, accepted, 180_000, logs);
    const recoveryMs = await firstServiceEventAfter(db, revivedAt);
    const lost = await missing(db, appends.ok);
    const ambiguous = appends.failed.length - (await missing(db, appends.failed)).length;
    report('Postgres restarted mid-run', {
      runs: accepted.length,
      faults: 1,
      downMs: revivedAt - crashedAt,
      recoveryMs,
      runsCompleted: [...ended.values()].filter((t) => t === 'complete').length,
      refusedWhileDown: during.filter((s) => s.status !== 200).length,
      refusalStatuses: [...new Set(during.map((s) => s.status))],
      appendsOk: appends.ok.length,
      appendsFailed: appends.failed.length,
      appendsFailedButCommitted: ambiguous,
      lost: lost.length,
    });
    expect(lost).toEqual([]);
    expect(appends.failed.length).toBeGreaterThan(0); // the appender did meet the outage
    // Accepted, or refused with a 503 (store_unavailable) to try again: never a 500 or a dropped connection.
    expect(during.filter((s) => s.status !== 200 && s.status !== 503)).toEqual([]);
    expect(after.map((s) => s.status)).toEqual(after.map(() => 200));
    expect([...ended.values()].every((t) => t === 'complete')).toBe(true);
    const counts = await reconcile(cluster.databaseUrl, { mustComplete: accepted });
    report('Postgres restarted mid-run, reconciled', counts);
  }, 420_000);
});

/**
 * After the revival, runs are accepted again once the gateway has its connections back: the first
 * answer that is not an error is waited for (bounded), then every later run must be accepted.
 */
async function submitAfterRevival(client: FlexClient, describe: () => string): Promise<Submitted[]> {
  const first = await waitFor(
    async () => {
      const answer = await submitRun(client, writerEnvelope(), 10_000);
      return answer.status === 200 ? answer : undefined;
    },
    60_000,
    describe,
  );
  const rest = await Promise.all(Array.from({ length: 2 }, () => submitRun(client, writerEnvelope())));
  return [first, ...rest];
}

/** One event at a time to a fresh stream, as fast as it goes, until stopped: what answered ok and what failed. */
function startAppender(url: string): { stop(): Promise<{ ok: string[]; failed: string[] }> } {
  const ok: string[] = [];
  const failed: string[] = [];
  let stopping = false;
  const deadline = Date.now() + 300_000;
  const loop = (async () => {
    const database = await createDatabase({ url, poolSize: 2 });
    const store = new EventStore(database.db);
    try {
      while (!stopping && Date.now() < deadline) {
        const id = randomUUID();
        const event = { id, type: 'chaos_probe', payload: {}, metadata: { correlationId: id } };
        const appended = await store.append(`chaos-${id}`, [event], { expectedVersion: 'no_stream' }).then(
          () => true,
          () => false,
        );
        (appended ? ok : failed).push(id);
        if (!appended) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await database.close().catch(() => undefined);
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await loop;
      return { ok, failed };
    },
  };
}

async function nodeStarts(db: FlexDatabase, runIds: readonly string[]): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(distinct stream_id)::int as n from events
    where type = 'node_start' and stream_id in (${sql.join(runIds.map((id) => `run-${id}`))})`.execute(db.db);
  return rows[0].n;
}

/** Of `ids`, the events not in the store. */
async function missing(db: FlexDatabase, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    select id::text from events where id in (${sql.join(ids.map((id) => sql`${id}::uuid`))})`.execute(db.db);
  const found = new Set(rows.map((r) => r.id));
  return ids.filter((id) => !found.has(id));
}

/** From the revival to the first event a service appended to a run after it (ms). */
async function firstServiceEventAfter(db: FlexDatabase, since: number): Promise<number> {
  const { rows } = await sql<{ at: Date | null }>`
    select min(recorded_at) as at from events
    where stream_id like 'run-%' and recorded_at > ${new Date(since).toISOString()}::timestamptz`.execute(
    db.db,
  );
  return rows[0].at ? rows[0].at.getTime() - since : -1;
}
