import type { FlexEventType } from '@flex/contracts';

/** The five services of distributed mode; each runs as its own NATS identity. */
export const FLEX_SERVICES = ['gateway', 'registry', 'planner', 'validator', 'executor'] as const;
export type FlexService = (typeof FLEX_SERVICES)[number];

/** What a service asks of the registry over request/reply. */
export type RegistryRequest = 'snapshot' | 'register' | 'assignOwner';

/**
 * What one service does on NATS: the permission table's rows for services. Each service publishes
 * only the events it appends (its outbox relay republishes no others), consumes through one durable
 * consumer named after it, and asks the registry only what it needs.
 */
export interface ServiceRole {
  /** Event types the service appends: after commit, or from its outbox relay. */
  publishes: readonly FlexEventType[];
  /** Consumes events through the durable consumer named after the service. */
  consumes: boolean;
  /** Watches runs' events live (core subscriptions on the event subjects: SSE streams). */
  watches: boolean;
  asks: readonly RegistryRequest[];
  /** Invokes agents (request/reply on their capability subjects). */
  invokesAgents: boolean;
  /** Serves the registry's subjects (and so replies to agents). */
  servesRegistry: boolean;
}

/** A run can fail wherever a message dead-letters: every consumer may append `run_failed`. */
const POLICY_ACTIONS = [
  'policy_triggered',
  'custom_event',
  'run_paused',
  'replan_deferred',
  'plan_requested',
  'hitl_request',
  'run_failed',
] as const satisfies readonly FlexEventType[];

export const SERVICE_ROLES: Readonly<Record<FlexService, ServiceRole>> = {
  gateway: {
    // start, HITL decisions (a refused node-output payload records a validation_error), resume,
    // cancel, and a manual policy trigger's actions.
    publishes: [
      'start',
      'hitl_resolved',
      'validation_error',
      'run_resumed',
      'run_cancelled',
      ...POLICY_ACTIONS,
    ],
    consumes: false,
    watches: true,
    asks: ['snapshot', 'register', 'assignOwner'],
    invokesAgents: false,
    servesRegistry: false,
  },
  registry: {
    publishes: [
      'capability_registered',
      'capability_status_changed',
      'capability_deregistered',
      'capability_owner_assigned',
    ],
    consumes: false,
    watches: false,
    asks: [],
    invokesAgents: false,
    servesRegistry: true,
  },
  planner: {
    publishes: ['plan_drafted', 'run_failed'],
    consumes: true,
    watches: false,
    asks: ['snapshot'],
    invokesAgents: false,
    servesRegistry: false,
  },
  validator: {
    publishes: ['plan_rejected', 'plan_requested', 'plan_generated', 'plan_updated', 'run_failed'],
    consumes: true,
    watches: false,
    asks: ['snapshot'],
    invokesAgents: false,
    servesRegistry: false,
  },
  executor: {
    publishes: [
      'node_start',
      'node_complete',
      'node_error',
      'validation_error',
      'complete',
      // An agent's lines of an attempt, and the executor's own lines about a run.
      'log',
      // A human request that stood in for an unreachable agent, withdrawn once the agent is back.
      'hitl_withdrawn',
      ...POLICY_ACTIONS,
    ],
    consumes: true,
    watches: false,
    asks: ['snapshot'],
    invokesAgents: true,
    servesRegistry: false,
  },
};

export function isFlexService(name: string): name is FlexService {
  return (FLEX_SERVICES as readonly string[]).includes(name);
}
