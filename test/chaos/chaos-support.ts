import { randomUUID } from 'node:crypto';
import {
  createDatabase,
  migrateToLatest,
  type FlexDatabase,
  type NewEvent,
  type Projection,
} from '@flex/event-store';
import { readModelMigrations } from '@flex/read-models';
import { createTestDatabase } from '@flex/testing';
import { sql } from 'kysely';

/**
 * The chaos suite's sizes. `npm run test:chaos` runs every scenario at `full` scale; the default
 * suite runs the same scenarios at `ci` scale (the default when FLEX_CHAOS_SCALE is unset).
 */
export type ChaosScale = 'full' | 'ci';

export function chaosScale(): ChaosScale {
  const scale = process.env.FLEX_CHAOS_SCALE ?? 'ci';
  if (scale !== 'full' && scale !== 'ci')
    throw new Error(`FLEX_CHAOS_SCALE must be full or ci, got ${scale}`);
  return scale;
}

/** The number for this scale, overridable by its own env variable (a positive integer). */
export function chaosNumber(env: string, sizes: Record<ChaosScale, number>): number {
  const raw = process.env[env];
  const value = raw === undefined ? sizes[chaosScale()] : Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${env} must be a positive integer`);
  return value;
}

/** A small seeded generator, so a failing sequence of random choices can be replayed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a randomized scenario: FLEX_CHAOS_SEED when set (to replay one), else a fresh one, printed. */
export function chaosSeed(scenario: string): number {
  const seed = Number(process.env.FLEX_CHAOS_SEED ?? Date.now() % 2 ** 31);
  console.log(`[chaos] ${scenario}: seed=${seed} (FLEX_CHAOS_SEED=${seed} replays it)`);
  return seed;
}

/** A scenario's figures, printed as one line a reader (and docs/RELIABILITY.md) can quote. */
export function report(scenario: string, figures: object): void {
  const line = Object.entries({ scale: chaosScale(), ...figures })
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  console.log(`[chaos] ${scenario}: ${line}`);
}

/** A migrated database (store and read models, plus the counting table) and more pools on it. */
export interface ChaosDb {
  url: string;
  database: FlexDatabase;
  /** Another pool on the same database, closed with the rest. */
  connect(poolSize: number): Promise<FlexDatabase>;
  close(): Promise<void>;
}

export async function openChaosDb(label: string): Promise<ChaosDb> {
  const testDb = await createTestDatabase(label);
  const opened: FlexDatabase[] = [];
  const connect = async (poolSize: number) => {
    const database = await createDatabase({ url: testDb.url, poolSize });
    opened.push(database);
    return database;
  };
  const database = await connect(6);
  await migrateToLatest(database.db, readModelMigrations);
  await sql`create table chaos_applied (
    projection text not null, event_id uuid not null, n int not null, primary key (projection, event_id)
  )`.execute(database.db);
  return {
    url: testDb.url,
    database,
    connect,
    close: async () => {
      await Promise.all(opened.map((db) => db.close()));
      await testDb.drop();
    },
  };
}

/**
 * The least forgiving read model: it counts how often each event was applied to it, so an event
 * applied twice (or never) shows as n = 2 (or a missing row). test/fixtures/chaos-projection.js
 * has the same one for its child process.
 */
export function countingProjection(name: string): Projection {
  return {
    name,
    async apply(trx, event) {
      await sql`insert into chaos_applied (projection, event_id, n) values (${name}, ${event.id}, 1)
        on conflict (projection, event_id) do update set n = chaos_applied.n + 1`.execute(trx);
    },
    async reset(trx) {
      await sql`delete from chaos_applied where projection = ${name}`.execute(trx);
    },
  };
}

/** How often each event id was applied to the counting projection `name`. */
export async function appliedCounts(db: FlexDatabase, name: string): Promise<Map<string, number>> {
  const { rows } = await sql<{ event_id: string; n: number }>`
    select event_id, n from chaos_applied where projection = ${name}`.execute(db.db);
  return new Map(rows.map((row) => [row.event_id, row.n]));
}

/** The events of a run as the services write them: started, planning requested, failed (terminal). */
export function runEvents(runId: string): NewEvent[] {
  const event = (type: string, payload: unknown): NewEvent => ({
    id: randomUUID(),
    type,
    payload,
    metadata: { correlationId: runId, producer: 'chaos' },
  });
  return [
    event('start', {
      runId,
      envelope: {
        objective: `objective of ${runId}`,
        inputs: {},
        outputContract: { schema: { type: 'object' } },
      },
      normalization: [],
      owner: { principal: 'tok_client', role: 'client' },
    }),
    event('plan_requested', { attempt: 1, reason: 'initial', policyKeys: [] }),
    event('run_failed', { code: 'agent_failed', reason: 'chaos' }),
  ];
}

/** Every row of the read model's tables, in a stable order, as JSON (to compare two states). */
export async function readModelRows(db: FlexDatabase): Promise<Record<string, unknown[]>> {
  const tables = ['runs', 'plan_versions', 'plan_nodes', 'run_outputs', 'hitl_requests'] as const;
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    const { rows } = await sql<{
      row: unknown;
    }>`select to_jsonb(t) as row from ${sql.table(table)} t`.execute(db.db);
    out[table] = rows.map((r) => JSON.stringify(r.row)).sort();
  }
  return out;
}

const TERMINAL = ['complete', 'run_failed', 'run_cancelled'] as const;
const TERMINAL_STATUSES = ['completed', 'failed', 'cancelled'];

/** What `reconcile` counted: every figure a scenario reports about its runs and its store. */
export interface Reconciled {
  /** Runs with a `start` event in the store. */
  runs: number;
  /** Terminal events (`complete`, `run_failed`, `run_cancelled`) in the store. */
  terminal: number;
  /** Read-model rows of runs in a terminal status. */
  readModelTerminal: number;
  /** How the runs ended, by terminal event type. */
  outcomes: Record<string, number>;
  events: number;
  /** Events missing from a stream (a version gap) or stored twice (an id seen twice): both 0. */
  lost: number;
  duplicates: number;
}

/**
 * The counts every chaos scenario ends on (issue 16): runs started = terminal events in the store =
 * terminal rows in the read model (waited for, up to `timeoutMs`, while the projections catch up);
 * one terminal event per run; every stream's versions 1..n with no gap; every event id once; and
 * every run in `mustComplete` (the runs that would have completed without the fault) completed.
 */
export async function reconcile(
  databaseUrl: string,
  expected: { mustComplete: readonly string[]; timeoutMs?: number },
): Promise<Reconciled> {
  const database = await createDatabase({ url: databaseUrl, poolSize: 2 });
  try {
    const db = database.db;
    const deadline = Date.now() + (expected.timeoutMs ?? 60_000);
    let counted = await countRuns(db);
    while (Date.now() < deadline && !settled(counted)) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      counted = await countRuns(db);
    }
    const { rows: streams } = await sql<{ stream_id: string; n: number; top: number; ids: number }>`
      select stream_id, count(*)::int as n, max(version)::int as top, count(distinct id)::int as ids
      from events group by stream_id`.execute(db);
    const lost = streams.reduce((sum, s) => sum + (s.top - s.n), 0);
    const duplicates = streams.reduce((sum, s) => sum + (s.n - s.ids), 0);
    const events = streams.reduce((sum, s) => sum + s.n, 0);
    const reconciled = { ...counted.figures, events, lost, duplicates };
    const notCompleted = expected.mustComplete.filter((runId) => counted.ended.get(runId) !== 'complete');
    expect({ ...reconciled, notCompleted, runsEndedTwice: counted.endedTwice }).toEqual({
      ...reconciled,
      terminal: counted.figures.runs,
      readModelTerminal: counted.figures.runs,
      lost: 0,
      duplicates: 0,
      notCompleted: [],
      runsEndedTwice: [],
    });
    return reconciled;
  } finally {
    await database.close();
  }
}

interface RunCounts {
  figures: Pick<Reconciled, 'runs' | 'terminal' | 'readModelTerminal' | 'outcomes'>;
  ended: Map<string, string>;
  endedTwice: string[];
}

const settled = (c: RunCounts) =>
  c.figures.terminal === c.figures.runs && c.figures.readModelTerminal === c.figures.runs;

async function countRuns(db: FlexDatabase['db']): Promise<RunCounts> {
  const { rows: started } = await sql<{ n: number }>`
    select count(*)::int as n from events where type = 'start' and stream_id like 'run-%'`.execute(db);
  const { rows: terminal } = await sql<{ stream_id: string; type: string }>`
    select stream_id, type from events where type in (${sql.join(TERMINAL)})`.execute(db);
  const { rows: read } = await sql<{ n: number }>`
    select count(*)::int as n from runs where status in (${sql.join(TERMINAL_STATUSES)})`.execute(db);
  const ended = new Map<string, string>();
  const endedTwice: string[] = [];
  const outcomes: Record<string, number> = {};
  for (const row of terminal) {
    const runId = row.stream_id.replace(/^run-/, '');
    if (ended.has(runId)) endedTwice.push(runId);
    ended.set(runId, row.type);
    outcomes[row.type] = (outcomes[row.type] ?? 0) + 1;
  }
  const figures = {
    runs: started[0].n,
    terminal: terminal.length,
    readModelTerminal: read[0].n,
    outcomes,
  };
  return { figures, ended, endedTwice };
}
