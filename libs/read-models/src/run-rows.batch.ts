import type { EventStoreDatabase } from '@flex/event-store';
import { sql, type Insertable, type Transaction, type Updateable } from 'kysely';
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
    this.runInserts.set(row.run_id, row);
    this.runUpdates.delete(row.run_id);
  }

  updateRun(runId: string, set: RunSet): void {
    const inserted = this.runInserts.get(runId);
    if (inserted) this.runInserts.set(runId, { ...inserted, ...set });
    else this.runUpdates.set(runId, { ...this.runUpdates.get(runId), ...set });
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
      await db
        .insertInto('plan_versions')
        .values([...this.planVersions.values()])
        .onConflict((oc) => oc.columns(['run_id', 'version']).doNothing())
        .execute();
    await this.flushNodes(db);
    if (this.hitl.size > 0)
      await db
        .insertInto('hitl_requests')
        .values([...this.hitl.values()])
        .onConflict((oc) =>
          oc.columns(['run_id', 'request_id']).doUpdateSet((eb) => ({
            node_id: eb.ref('excluded.node_id'),
            status: eb.ref('excluded.status'),
            decision: eb.ref('excluded.decision'),
            resolved_at: eb.ref('excluded.resolved_at'),
          })),
        )
        .execute();
    if (this.outputs.size > 0)
      await db
        .insertInto('run_outputs')
        .values([...this.outputs.values()])
        .onConflict((oc) => oc.column('run_id').doNothing())
        .execute();
  }

  private async flushRuns(db: RunRowsDb): Promise<void> {
    if (this.runInserts.size > 0) {
      const rows = [...this.runInserts.values()];
      const columns = Object.keys(RUN_COLUMN_TYPES) as Array<keyof RunSet>;
      await db
        .insertInto('runs')
        .values(rows)
        .onConflict((oc) =>
          oc
            .column('run_id')
            .doUpdateSet((eb) => Object.fromEntries(columns.map((c) => [c, eb.ref(`excluded.${c}`)]))),
        )
        .execute();
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
      await db
        .insertInto('plan_nodes')
        .values(upserts)
        .onConflict((oc) =>
          oc.columns(['run_id', 'node_id']).doUpdateSet((eb) => ({
            kind: eb.ref('excluded.kind'),
            capability_id: eb.ref('excluded.capability_id'),
            status: eb.ref('excluded.status'),
            attempt: eb.ref('excluded.attempt'),
            output: eb.ref('excluded.output'),
            error: eb.ref('excluded.error'),
            updated_at: eb.ref('excluded.updated_at'),
          })),
        )
        .execute();
    if (deletes.length > 0)
      await db
        .deleteFrom('plan_nodes')
        .where((eb) =>
          eb.or(deletes.map((d) => eb.and([eb('run_id', '=', d.runId), eb('node_id', '=', d.nodeId)]))),
        )
        .execute();
  }
}

/** Many runs' rows updated in one statement: the new values travel as one JSON array of records. */
async function updateRuns(
  db: RunRowsDb,
  columns: Array<keyof RunSet>,
  rows: Array<{ run_id: string } & RunSet>,
): Promise<void> {
  for (const c of columns)
    if (!(c in RUN_COLUMN_TYPES)) throw new Error(`runs has no column ${String(c)} to update`);
  // JSON columns travel as their text and are cast back: a jsonb record field would keep them strings.
  const fieldType = (c: keyof RunSet) => (RUN_COLUMN_TYPES[c] === 'jsonb' ? 'text' : RUN_COLUMN_TYPES[c]);
  const fields = sql.raw(['run_id text', ...columns.map((c) => `${c} ${fieldType(c)}`)].join(', '));
  const sets = sql.raw(columns.map((c) => `${c} = v.${c}::${RUN_COLUMN_TYPES[c]}`).join(', '));
  await sql`update runs as r set ${sets}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(${fields})
    where r.run_id = v.run_id`.execute(db);
}
