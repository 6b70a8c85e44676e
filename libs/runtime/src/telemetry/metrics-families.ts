/**
 * Every metric family Flex exports, named as Prometheus shows them (`flex_*`, unit in the name,
 * `_total` on counters). The one list docs/OBSERVABILITY.md, the families test and the dashboard
 * check read: an instrument exists only if it is declared here.
 */
export type FamilyKind = 'counter' | 'histogram' | 'gauge' | 'updown';

export interface Family {
  /** The Prometheus name (a counter's without `_total`: OTel's exporter appends it). */
  readonly name: string;
  readonly kind: FamilyKind;
  readonly unit: string;
  readonly help: string;
  /** Label names; their values are bounded sets (never run ids, never user text). */
  readonly labels: readonly string[];
  /** Histogram bucket boundaries, in the family's unit. */
  readonly buckets?: readonly number[];
}

const SECONDS_FAST = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const SECONDS_NODE = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const SECONDS_RUN = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 14_400];
const SECONDS_HUMAN = [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 14_400, 86_400];

const family = <const F extends Family>(f: F): F => f;

export const FAMILIES = {
  runsStarted: family({
    name: 'flex_runs_started',
    kind: 'counter',
    unit: '{run}',
    help: 'Runs started (a start sent again with the same Idempotency-Key is not a new run)',
    labels: [],
  }),
  runsCompleted: family({
    name: 'flex_runs_completed',
    kind: 'counter',
    unit: '{run}',
    help: 'Runs that ended with complete',
    labels: [],
  }),
  runsFailed: family({
    name: 'flex_runs_failed',
    kind: 'counter',
    unit: '{run}',
    help: 'Runs that ended with run_failed, by reason (the run_failed code)',
    labels: ['reason'],
  }),
  runsCancelled: family({
    name: 'flex_runs_cancelled',
    kind: 'counter',
    unit: '{run}',
    help: 'Runs that ended with run_cancelled',
    labels: [],
  }),
  runDuration: family({
    name: 'flex_run_duration_seconds',
    kind: 'histogram',
    unit: 's',
    help: 'From start to the terminal event, by outcome (completed, failed, cancelled)',
    labels: ['outcome'],
    buckets: SECONDS_RUN,
  }),
  nodeDuration: family({
    name: 'flex_node_duration_seconds',
    kind: 'histogram',
    unit: 's',
    help: 'One attempt of a node: the agent call, by capability and outcome (ok, error)',
    labels: ['capability', 'outcome'],
    buckets: SECONDS_NODE,
  }),
  dispatchErrors: family({
    name: 'flex_agent_dispatch_errors',
    kind: 'counter',
    unit: '{error}',
    help: 'Agent calls that failed, by capability and kind (timeout, no_responders, invalid_output…)',
    labels: ['capability', 'kind'],
  }),
  planAttempts: family({
    name: 'flex_plan_attempts',
    kind: 'counter',
    unit: '{attempt}',
    help: 'Plans asked for (plan_requested), by reason (initial, rejected, replan)',
    labels: ['reason'],
  }),
  planDraftDuration: family({
    name: 'flex_plan_draft_duration_seconds',
    kind: 'histogram',
    unit: 's',
    help: 'Drafting one plan, by planner (rule-based, llm)',
    labels: ['planner'],
    buckets: SECONDS_NODE,
  }),
  planRejections: family({
    name: 'flex_plan_rejections',
    kind: 'counter',
    unit: '{rejection}',
    help: 'Plans rejected (plan_rejected), once per diagnostic code (cause) among its failures, by source',
    labels: ['source', 'cause'],
  }),
  policyTriggers: family({
    name: 'flex_policy_triggers',
    kind: 'counter',
    unit: '{trigger}',
    help: 'Runtime policies that fired (policy_triggered), by action',
    labels: ['action'],
  }),
  hitlWait: family({
    name: 'flex_hitl_wait_seconds',
    kind: 'histogram',
    unit: 's',
    help: 'From hitl_request to the operator decision (hitl_resolved) or its withdrawal (hitl_withdrawn), by decision',
    labels: ['decision'],
    buckets: SECONDS_HUMAN,
  }),
  appendDuration: family({
    name: 'flex_event_store_append_duration_seconds',
    kind: 'histogram',
    unit: 's',
    help: 'One append to the event store (group commit included), by outcome (ok, error)',
    labels: ['outcome'],
    buckets: SECONDS_FAST,
  }),
  projectionLagEvents: family({
    name: 'flex_projection_lag_events',
    kind: 'gauge',
    unit: '{event}',
    help: 'Events in the store past a projection or consumer checkpoint',
    labels: ['projection'],
  }),
  projectionLagSeconds: family({
    name: 'flex_projection_lag_seconds',
    kind: 'gauge',
    unit: 's',
    help: 'Age of the oldest event a projection or consumer has not applied yet (0 when caught up)',
    labels: ['projection'],
  }),
  busRedeliveries: family({
    name: 'flex_bus_redeliveries',
    kind: 'counter',
    unit: '{delivery}',
    help: 'Deliveries of an event a consumer had been handed before (delivery count above 1), by consumer',
    labels: ['consumer'],
  }),
  busDeliveries: family({
    name: 'flex_bus_deliveries',
    kind: 'counter',
    unit: '{delivery}',
    help: 'Deliveries of events a consumer instance was handed (redeliveries included), by consumer',
    labels: ['consumer'],
  }),
  registryRequests: family({
    name: 'flex_registry_requests',
    kind: 'counter',
    unit: '{request}',
    help: 'Requests a registry instance took from its queue group (register, deregister, snapshot, assign_owner), by request',
    labels: ['request'],
  }),
  busDeadLetters: family({
    name: 'flex_bus_dead_letters',
    kind: 'counter',
    unit: '{message}',
    help: 'Messages a consumer gave up on (recorded as dead letters), by consumer',
    labels: ['consumer'],
  }),
  sseClients: family({
    name: 'flex_sse_clients',
    kind: 'updown',
    unit: '{client}',
    help: 'SSE streams open now (run.stream, run.resume, runs/:id/events)',
    labels: [],
  }),
  sseClosed: family({
    name: 'flex_sse_streams_closed',
    kind: 'counter',
    unit: '{stream}',
    help: 'SSE streams ended, by reason (terminal, paused, client_left, stalled, shutdown, error)',
    labels: ['reason'],
  }),
} as const satisfies Record<string, Family>;

export type FamilyKey = keyof typeof FAMILIES;

/** The name a scrape shows for a family: counters carry `_total`. */
export function exportedName(f: Family): string {
  return f.kind === 'counter' ? `${f.name}_total` : f.name;
}
