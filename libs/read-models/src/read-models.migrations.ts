import { sql, type Kysely, type Migration } from 'kysely';
import { compressWithLz4 } from '@flex/event-store';

/** Read-model tables. Projections own their rows; every table can be truncated and rebuilt. */
export const readModelMigrations: Record<string, Migration> = {
  '2026112210_read_models': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('runs')
        .ifNotExists()
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('owner_role', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('objective', 'text', (c) => c.notNull())
        .addColumn('plan_version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('satisfaction_score', 'double precision')
        .addColumn('observed_satisfaction', 'double precision')
        .addColumn('failure_code', 'text')
        .addColumn('failure_reason', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .addColumn('last_position', 'bigint', (c) => c.notNull())
        .addColumn('last_event_type', 'text', (c) => c.notNull())
        .execute();
      await sql`create index if not exists runs_owner_created on runs (owner, created_at desc)`.execute(db);
      await sql`create index if not exists runs_created on runs (created_at desc)`.execute(db);
      await db.schema
        .createTable('run_outputs')
        .ifNotExists()
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('output', 'jsonb', (c) => c.notNull())
        .addColumn('plan_version', 'integer', (c) => c.notNull())
        .addColumn('completed_at', 'timestamptz', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('plan_versions')
        .ifNotExists()
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('plan', 'jsonb', (c) => c.notNull())
        .addColumn('plan_hash', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('satisfaction_score', 'double precision')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('plan_versions_pk', ['run_id', 'version'])
        .execute();
      await db.schema
        .createTable('plan_nodes')
        .ifNotExists()
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('capability_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('output', 'jsonb')
        .addColumn('error', 'jsonb')
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('plan_nodes_pk', ['run_id', 'node_id'])
        .execute();
      await db.schema
        .createTable('capabilities')
        .ifNotExists()
        .addColumn('capability_id', 'text', (c) => c.notNull())
        .addColumn('instance_id', 'text', (c) => c.notNull())
        .addColumn('registration', 'jsonb', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('registered_at', 'timestamptz', (c) => c.notNull())
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('capabilities_pk', ['capability_id', 'instance_id'])
        .execute();
      await db.schema
        .createTable('hitl_requests')
        .ifNotExists()
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('rationale', 'text')
        .addColumn('decision', 'text')
        .addColumn('created_at', 'timestamptz', (c) => c.notNull())
        .addColumn('resolved_at', 'timestamptz')
        .addPrimaryKeyConstraint('hitl_requests_pk', ['run_id', 'request_id'])
        .execute();
      // Liveness is not history: heartbeats land here directly, outside the event log.
      await db.schema
        .createTable('capability_liveness')
        .ifNotExists()
        .addColumn('capability_id', 'text', (c) => c.notNull())
        .addColumn('instance_id', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('capability_liveness_pk', ['capability_id', 'instance_id'])
        .execute();
    },
  },
  // The validator's findings beside each plan version, and a failed run's last findings (spec 000 §5.9.4).
  '2026120301_plan_diagnostics': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('plan_versions').addColumn('diagnostics', 'jsonb').execute();
      await db.schema.alterTable('plan_versions').addColumn('registry_hash', 'text').execute();
      await db.schema.alterTable('runs').addColumn('failure_diagnostics', 'jsonb').execute();
    },
  },
  // The runs read model is written from the run's own fold (evolveRun) now, one changed row at a time
  // on top of what is there. Rows the earlier per-event SQL wrote differ (a failed run's requests left
  // pending, the nodes of replaced plans): drop them, and the projection replays the log from 0.
  '2026120401_runs_from_fold': {
    async up(db: Kysely<unknown>) {
      for (const table of ['hitl_requests', 'run_outputs', 'plan_nodes', 'plan_versions', 'runs'])
        await sql`delete from ${sql.table(table)}`.execute(db);
      await sql`delete from checkpoints where name = 'runs'`.execute(db);
    },
  },
  // GET runs/:id (spec 003 §10.1): the run's envelope, each plan version's pending nodes. Rows
  // written before have neither: drop them, and the projection replays the log from 0. The indexes
  // serve GET runs' keyset pages (newest first, then run id), with or without an owner.
  '2026121501_run_detail': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('runs').addColumn('envelope', 'jsonb').execute();
      await db.schema.alterTable('plan_versions').addColumn('pending_node_ids', 'jsonb').execute();
      for (const table of ['hitl_requests', 'run_outputs', 'plan_nodes', 'plan_versions', 'runs'])
        await sql`delete from ${sql.table(table)}`.execute(db);
      await sql`delete from checkpoints where name = 'runs'`.execute(db);
      await sql`create index if not exists runs_page on runs (created_at desc, run_id desc)`.execute(db);
      await sql`create index if not exists runs_owner_page on runs (owner, created_at desc, run_id desc)`.execute(
        db,
      );
      await sql`create index if not exists plan_nodes_capability on plan_nodes (capability_id)`.execute(db);
    },
  },
  // The read model's large values (plans, envelopes, outputs) compressed with LZ4 where the server has
  // it: inserting a rebuild's plan versions took 221 ms with pglz, 140 with LZ4 (compressWithLz4).
  '2026122603_lz4_read_models': {
    async up(db: Kysely<unknown>) {
      await compressWithLz4(db, 'plan_versions', ['plan']);
      await compressWithLz4(db, 'runs', ['envelope']);
      await compressWithLz4(db, 'plan_nodes', ['output']);
      await compressWithLz4(db, 'run_outputs', ['output']);
    },
  },
  // A plan version names the event that accepted it (plan_generated or plan_updated) instead of holding
  // a copy of its plan: the plan is read from that event when the version is shown (run-detail.query).
  // A rebuild wrote 2.2 MB of plan text per 210 runs into plan_versions; it writes a position now.
  // Rows already there get their event's position (the first event to accept that version, as the
  // projection's insert keeps the first); an archived run's rows went with its events.
  '2026122801_plan_versions_by_event': {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('plan_versions').addColumn('event_position', 'bigint').execute();
      await sql`
        update plan_versions pv set event_position = (
          select e.position from events e
          where e.stream_id = 'run-' || pv.run_id
            and ((e.type = 'plan_generated' and (e.payload ->> 'planVersion')::integer = pv.version)
              or (e.type = 'plan_updated' and (e.payload ->> 'version')::integer = pv.version))
          order by e.version
          limit 1)`.execute(db);
      await sql`delete from plan_versions where event_position is null`.execute(db);
      await sql`alter table plan_versions alter column event_position set not null`.execute(db);
      await db.schema.alterTable('plan_versions').dropColumn('plan').execute();
    },
  },
  // Every start counts its principal's working runs (workingRunsAtMost): by owner alone, the count
  // read every run the principal ever had. The statuses are queries.ts's WORKING.
  '2026122901_runs_working_owner': {
    async up(db: Kysely<unknown>) {
      await sql`create index if not exists runs_working_owner on runs (owner)
        where status in ('planning', 'running')`.execute(db);
    },
  },
};
