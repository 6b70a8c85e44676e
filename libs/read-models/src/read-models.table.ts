import type { CapabilityRegistration, DiagnosticsBundle, TaskEnvelope } from '@flex/contracts';
import type { ColumnType } from 'kysely';

type Json<T = unknown> = ColumnType<T, string, string>;
type Timestamp = ColumnType<Date, string, string>;

export interface RunsTable {
  run_id: string;
  owner: string;
  owner_role: string;
  status: string;
  objective: string;
  plan_version: number;
  satisfaction_score: number | null;
  observed_satisfaction: number | null;
  failure_code: string | null;
  failure_reason: string | null;
  failure_diagnostics: Json<DiagnosticsBundle> | null;
  /** The normalized envelope `start` recorded (secrets are references). */
  envelope: Json<TaskEnvelope>;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_position: ColumnType<string | number, number, number>;
  last_event_type: string;
}

export interface RunOutputsTable {
  run_id: string;
  output: Json<Record<string, unknown>>;
  plan_version: number;
  completed_at: Timestamp;
}

export interface PlanVersionsTable {
  run_id: string;
  version: number;
  /** The position of the event that accepted this version (its plan is read from there). */
  event_position: ColumnType<string | number, number, number>;
  plan_hash: string;
  status: string;
  satisfaction_score: number | null;
  diagnostics: Json<DiagnosticsBundle> | null;
  registry_hash: string | null;
  /** The version's nodes not yet completed (nor skipped) when it was accepted. */
  pending_node_ids: Json<string[]>;
  created_at: Timestamp;
}

export interface PlanNodesTable {
  run_id: string;
  node_id: string;
  kind: string;
  capability_id: string | null;
  status: string;
  attempt: number;
  output: Json | null;
  error: Json | null;
  updated_at: Timestamp;
}

export interface CapabilitiesTable {
  capability_id: string;
  instance_id: string;
  registration: Json<CapabilityRegistration>;
  status: string;
  registered_at: Timestamp;
  updated_at: Timestamp;
}

/** One HITL request of a run, as the run's fold has it (see `hitlColumns` in run-rows.ts). */
export interface HitlRequestsTable {
  run_id: string;
  request_id: string;
  node_id: string | null;
  /** `pending`, `decided`, `resolved`, or `cancelled` (closed with its run). */
  status: string;
  rationale: string | null;
  decision: string | null;
  created_at: Timestamp;
  /** The time of the event that gave the request its status; null while it is pending. */
  resolved_at: Timestamp | null;
}

/** Heartbeats land here directly, outside the event log (the registry writes it with raw SQL). */
export interface CapabilityLivenessTable {
  capability_id: string;
  instance_id: string;
  last_seen_at: Timestamp;
}

/**
 * The read models' tables, beside the store's in the same database: `db.withTables<ReadModelDatabase>()`
 * adds them to the store's Kysely (a type alias, not an interface: withTables wants an index signature).
 */
export type ReadModelDatabase = {
  runs: RunsTable;
  run_outputs: RunOutputsTable;
  plan_versions: PlanVersionsTable;
  plan_nodes: PlanNodesTable;
  capabilities: CapabilitiesTable;
  hitl_requests: HitlRequestsTable;
  capability_liveness: CapabilityLivenessTable;
};
