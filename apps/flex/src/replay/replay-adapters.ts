import type { EventPayload } from '@flex/contracts';
import { executorReplayAdapter, retryPolicy, type PolicyEvaluator } from '@flex/executor';
import { gatewayReplayAdapter } from '@flex/gateway';
import { plannerReplayAdapter } from '@flex/planner';
import { replayAdapters, type ReplayAdapter, type ReplayAdapters, type ReplayStep } from '@flex/replay';
import { decideDeadLetterFailure, evolveRunEnding, initialRunEnding, type FlexConfig } from '@flex/runtime';
import { validatorReplayAdapter } from '@flex/validator';

/** The settings Flex's decisions depend on (the FLEX_* variables of the deployment that ran them). */
export type DecisionSettings = Pick<
  FlexConfig,
  'FLEX_MAX_PLAN_ATTEMPTS' | 'FLEX_MAX_REPLANS' | 'FLEX_MAX_HITL_REQUESTS' | 'FLEX_NODE_MAX_ATTEMPTS'
>;

/** What a replay may put in place of a component's own logic (to see what a change would alter). */
export interface ReplayOverrides {
  /** The policy engine's evaluation of the policies watching a trigger. */
  evaluate?: PolicyEvaluator;
}

/**
 * Every producer of a run's events and how its decisions are taken again: gateway, planner,
 * validator, executor. A dead-lettered message's `run_failed` (written under the service that gave
 * up) is decided again by the dead-letter rule, whatever the service.
 */
export function flexReplayAdapters(
  settings: DecisionSettings,
  overrides: ReplayOverrides = {},
): ReplayAdapters {
  const limits = { maxReplans: settings.FLEX_MAX_REPLANS, maxHitlRequests: settings.FLEX_MAX_HITL_REQUESTS };
  const adapters = [
    gatewayReplayAdapter(limits),
    plannerReplayAdapter({ maxReplans: settings.FLEX_MAX_REPLANS }),
    validatorReplayAdapter({
      maxAttempts: settings.FLEX_MAX_PLAN_ATTEMPTS,
      maxReplans: settings.FLEX_MAX_REPLANS,
    }),
    executorReplayAdapter({ limits, retry: retryPolicy(settings.FLEX_NODE_MAX_ATTEMPTS), ...overrides }),
  ];
  return replayAdapters(...adapters.map(withDeadLetters));
}

function withDeadLetters(adapter: ReplayAdapter): ReplayAdapter {
  return {
    ...adapter,
    redecide: (step) => {
      const dead = deadLetterOf(step);
      return dead ? [{ via: 'decideDeadLetterFailure', events: dead }] : adapter.redecide(step);
    },
  };
}

function deadLetterOf(step: ReplayStep) {
  const [first] = step.recorded;
  const failed = first.type === 'run_failed' ? (first.payload as EventPayload<'run_failed'>) : undefined;
  if (!failed?.deadLetter || !step.trigger) return undefined;
  const { deliveryCount, error } = failed.deadLetter;
  const state = step.history.reduce(evolveRunEnding, initialRunEnding());
  const consumer = first.metadata.producer ?? failed.deadLetter.consumer;
  return decideDeadLetterFailure(state, { consumer, event: step.trigger, deliveryCount, reason: error });
}

/** The gateway's policy what-if over this deployment's decide functions (embedded, and gateway-main.js). */
export function gatewayWhatIf(config: FlexConfig): {
  whatIf: { adapters: ReplayAdapters; budgetMs: number };
} {
  return { whatIf: { adapters: flexReplayAdapters(config), budgetMs: config.FLEX_WHAT_IF_BUDGET_MS } };
}
