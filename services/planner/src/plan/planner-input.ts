import { contentHash, type PlanGraph } from '@flex/contracts';
import type { PlannerRequest } from './planner';

/** Spec 004 `normalize_goal`: trimmed and lower-cased (NFC first, so equal text hashes equally). */
export function normalizeGoal(goal: string): string {
  return goal.normalize('NFC').trim().toLowerCase();
}

/**
 * Spec 004 input normalization: the goal normalized, every other input as canonical JSON
 * (RFC 8785, so key order never matters) and the registry as a sorted set of canonical entries.
 * Everything the plan depends on is here; nothing else (not the attempt number, not the clock).
 */
export function normalizedPlannerInput(request: PlannerRequest): Record<string, unknown> {
  const { envelope } = request;
  return {
    goal: normalizeGoal(envelope.objective),
    inputs: envelope.inputs ?? {},
    specialInstructions: (envelope.specialInstructions ?? []).map((s) => s.normalize('NFC').trim()),
    outputContract: envelope.outputContract,
    policies: envelope.policies?.planner ?? {},
    // A set: each registration's own hash, sorted, so registry order never matters.
    capabilities: request.capabilities.map((c) => contentHash(c)).sort(),
    planVersion: request.planVersion,
    diagnostics: request.diagnostics
      ? [...request.diagnostics.failures, ...request.diagnostics.warnings]
      : [],
    replan: request.replan
      ? {
          trigger: request.replan.trigger,
          previousVersion: request.replan.previousVersion,
          previousPlanHash: planHash(request.replan.previousPlan),
          completed: request.replan.completed,
        }
      : null,
  };
}

/** The hash of the normalized planner input (`metadata.inputHash`). */
export function plannerInputHash(request: PlannerRequest): string {
  return contentHash(normalizedPlannerInput(request));
}

/**
 * sha256 of the canonical plan graph without its time-varying fields (spec 004 "Allowed
 * Variance": tokens and cost), so two runs that got the same plan show the same hash.
 */
export function planHash(plan: PlanGraph): string {
  const { tokens: _tokens, costCents: _cost, ...stable } = plan.metadata;
  return contentHash({ ...plan, metadata: stable });
}
