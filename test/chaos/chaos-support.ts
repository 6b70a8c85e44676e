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

/** A scenario's figures, printed as one line a reader (and docs/RELIABILITY.md) can quote. */
export function report(scenario: string, figures: Record<string, unknown>): void {
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
