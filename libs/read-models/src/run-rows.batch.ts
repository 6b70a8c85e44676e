import type { EventStoreDatabase } from '@flex/event-store';
import { sql, type Insertable, type RawBuilder, type Transaction, type Updateable } from 'kysely';
import type {
  HitlRequestsTable,
  PlanNodesTable,
  PlanVersionsTable,
  ReadModelDatabase,
  RunOutputsTable,
  RunsTable,
} from './read-models.table';

/** The projection's transaction with the read models' tables added (types only: the same transaction). */
export type RunRowsDb = Transaction<EventStoreDatabase & ReadModelDatabase>;

export type RunRow = Insertable<RunsTable>;
export type RunSet = Omit<Updateable<RunsTable>, 'run_id'>;
type NodeRow = Insertable<PlanNodesTable>;
type HitlRow = Insertable<HitlRequestsTable>;

/** The SQL type of each `runs` column an update may set (a whitelist: names go into the statement). */
const RUN_COLUMN_TYPES: Record<keyof RunSet, string> = {
  owner: 'text',
  owner_role: 'text',
  status: 'text',
  objective: 'text',
  plan_version: 'integer',
  satisfaction_score: 'double precision',
  observed_satisfaction: 'double precision',
  failure_code: 'text',
  failure_reason: 'text',
  failure_diagnostics: 'jsonb',
  envelope: 'jsonb',
  created_at: 'timestamptz',
  updated_at: 'timestamptz',
  last_position: 'bigint',
  last_event_type: 'text',
};

/** The SQL type of each column of the other tables a flush inserts into (the same whitelist). */
const PLAN_VERSION_COLUMN_TYPES: Record<keyof PlanVersionsTable, string> = {
  run_id: 'text',
  version: 'integer',
  event_position: 'bigint',
  plan_hash: 'text',
  status: 'text',
  satisfaction_score: 'double precision',
  diagnostics: 'jsonb',
  registry_hash: 'text',
  pending_node_ids: 'jsonb',
  created_at: 'timestamptz',
};

const NODE_COLUMN_TYPES: Record<keyof PlanNodesTable, string> = {
  run_id: 'text',
  node_id: 'text',
  kind: 'text',
  capability_id: 'text',
  status: 'text',
  attempt: 'integer',
  output: 'jsonb',
  error: 'jsonb',
  updated_at: 'timestamptz',
};

const HITL_COLUMN_TYPES: Record<keyof HitlRequestsTable, string> = {
  run_id: 'text',
  request_id: 'text',
  node_id: 'text',
  status: 'text',
  rationale: 'text',
  decision: 'text',
  created_at: 'timestamptz',
  resolved_at: 'timestamptz',
};

const OUTPUT_COLUMN_TYPES: Record<keyof RunOutputsTable, string> = {
  run_id: 'text',
  output: 'jsonb',
  plan_version: 'integer',
  completed_at: 'timestamptz',
};

/**
 * The row writes of a batch of run events, combined per row into what writing them one by one
 * leaves, then written with a few multi-row statements (flush). Per row: an insert followed by
 * updates is the insert of the updated row; updates merge, the later value winning; a plan version
 * and an output keep the first write (their inserts do nothing on conflict); a node keeps its last
 * write (upsert or delete, both setting every column); a HITL request keeps its first insert's
 * rationale and creation time and its last status.
 */
export class RunRowWrites {
  private readonly runInserts = new Map<string, RunRow>();
  private readonly runUpdates = new Map<string, RunSet>();
  private readonly planVersions = new Map<string, Insertable<PlanVersionsTable>>();
  private readonly nodes = new Map<string, { row: NodeRow } | { runId: string; nodeId: string }>();
  private readonly hitl = new Map<string, HitlRow>();
  private readonly outputs = new Map<string, Insertable<RunOutputsTable>>();

  /** The whole row (a leftover row of the same id is overwritten). */
  insertRun(row: RunRow): void {
    this.runInserts.set(row.run_id, { ...row });
    this.runUpdates.delete(row.run_id);
  }

  /**
   * Merged into the row's held insert or update, in place (the held rows are copies: every event of
   * a run updates its row, and copying the whole row each time was garbage for nothing).
   */
  updateRun(runId: string, set: RunSet): void {
    const held = this.runInserts.get(runId) ?? this.runUpdates.get(runId);
    if (held) Object.assign(held, set);
    else this.runUpdates.set(runId, { ...set });
  }

  insertPlanVersion(row: Insertable<PlanVersionsTable>): void {
    const key = `${row.run_id}\u0000${row.version}`;
    if (!this.planVersions.has(key)) this.planVersions.set(key, row);
  }

  upsertNode(row: NodeRow): void {
    this.nodes.set(`${row.run_id}\u0000${row.node_id}`, { row });
  }

  deleteNode(runId: string, nodeId: string): void {
    this.nodes.set(`${runId}\u0000${nodeId}`, { runId, nodeId });
  }

  /** Inserted with all of `row`, or, when the row exists, its status columns and `resolved_at` set. */
  upsertHitl(row: HitlRow): void {
    const key = `${row.run_id}\u0000${row.request_id}`;
    const held = this.hitl.get(key);
    this.hitl.set(key, held ? { ...row, rationale: held.rationale, created_at: held.created_at } : row);
  }

  insertOutput(row: Insertable<RunOutputsTable>): void {
    if (!this.outputs.has(row.run_id)) this.outputs.set(row.run_id, row);
  }

  async flush(db: RunRowsDb): Promise<void> {
    await this.flushRuns(db);
    if (this.planVersions.size > 0)
      await insertRecords(
        db,
        'plan_versions',
        PLAN_VERSION_COLUMN_TYPES,
        [...this.planVersions.values()],
        sql`on conflict (run_id, version) do nothing`,
      );
    await this.flushNodes(db);
    if (this.hitl.size > 0)
      await insertRecords(
        db,
        'hitl_requests',
        HITL_COLUMN_TYPES,
        [...this.hitl.values()],
        sql`on conflict (run_id, request_id) do update set ${excluded(['node_id', 'status', 'decision', 'resolved_at'])}`,
      );
    if (this.outputs.size > 0)
      await insertRecords(
        db,
        'run_outputs',
        OUTPUT_COLUMN_TYPES,
        [...this.outputs.values()],
        sql`on conflict (run_id) do nothing`,
      );
  }

  private async flushRuns(db: RunRowsDb): Promise<void> {
    if (this.runInserts.size > 0) {
      const columns = Object.keys(RUN_COLUMN_TYPES);
      await insertRecords(
        db,
        'runs',
        { run_id: 'text', ...RUN_COLUMN_TYPES },
        [...this.runInserts.values()],
        sql`on conflict (run_id) do update set ${excluded(columns)}`,
      );
    }
    // One statement per set of columns updated (a run's end sets two more).
    const byColumns = new Map<string, Array<{ run_id: string } & RunSet>>();
    for (const [runId, set] of this.runUpdates) {
      const key = Object.keys(set).sort().join(',');
      byColumns.set(key, [...(byColumns.get(key) ?? []), { run_id: runId, ...set }]);
    }
    for (const [key, rows] of byColumns) await updateRuns(db, key.split(',') as Array<keyof RunSet>, rows);
  }

  private async flushNodes(db: RunRowsDb): Promise<void> {
    const upserts: NodeRow[] = [];
    const deletes: Array<{ runId: string; nodeId: string }> = [];
    for (const write of this.nodes.values()) {
      if ('row' in write) upserts.push(write.row);
      else deletes.push(write);
    }
    if (upserts.length > 0)
      await insertRecords(
        db,
        'plan_nodes',
        NODE_COLUMN_TYPES,
        upserts,
        sql`on conflict (run_id, node_id) do update set ${excluded([
          'kind',
          'capability_id',
          'status',
          'attempt',
          'output',
          'error',
          'updated_at',
        ])}`,
      );
    if (deletes.length > 0)
      await db
        .deleteFrom('plan_nodes')
        .where((eb) =>
          eb.or(deletes.map((d) => eb.and([eb('run_id', '=', d.runId), eb('node_id', '=', d.nodeId)]))),
        )
        .execute();
  }
}

/** `c = excluded.c, ...` for an upsert's columns (names from the column lists here, never from rows). */
function excluded(columns: readonly string[]) {
  return sql.raw(columns.map((c) => `${c} = excluded.${c}`).join(', '));
}

/**
 * Many rows inserted in one statement: they travel as one JSON array of records, one parameter in
 * all rather than one per value (a batch's 1,050 node rows were 9,450 parameters, and the statement
 * that many placeholders, to build, send, parse and plan). Every column of `types` is written; a
 * field a row lacks or holds null is null, as a multi-row VALUES would write it.
 */
async function insertRecords(
  db: RunRowsDb,
  table: 'runs' | 'plan_versions' | 'plan_nodes' | 'hitl_requests' | 'run_outputs',
  types: Readonly<Record<string, string>>,
  rows: readonly object[],
  conflict: RawBuilder<unknown>,
): Promise<void> {
  const columns = Object.keys(types);
  const names = sql.raw(columns.join(', '));
  const values = sql.raw(columns.map((c) => `v.${c}::${types[c]}`).join(', '));
  await sql`insert into ${sql.table(table)} (${names})
    select ${values} from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(${recordFields(columns, types)})
    ${conflict}`.execute(db);
}

/**
 * The record's fields for jsonb_to_recordset: JSON columns travel as their text and are cast back (a
 * jsonb record field would keep them strings), the others as their own type.
 */
function recordFields(columns: readonly string[], types: Readonly<Record<string, string>>) {
  return sql.raw(columns.map((c) => `${c} ${types[c] === 'jsonb' ? 'text' : types[c]}`).join(', '));
}

/** Many runs' rows updated in one statement: the new values travel as one JSON array of records. */
async function updateRuns(
  db: RunRowsDb,
  columns: Array<keyof RunSet>,
  rows: Array<{ run_id: string } & RunSet>,
): Promise<void> {
  for (const c of columns)
    if (!(c in RUN_COLUMN_TYPES)) throw new Error(`runs has no column ${String(c)} to update`);
  const fields = recordFields(['run_id', ...columns], { run_id: 'text', ...RUN_COLUMN_TYPES });
  const sets = sql.raw(columns.map((c) => `${c} = v.${c}::${RUN_COLUMN_TYPES[c]}`).join(', '));
  await sql`update runs as r set ${sets}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(${fields})
    where r.run_id = v.run_id`.execute(db);
}
