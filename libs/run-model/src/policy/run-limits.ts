/** Bounds the run model enforces (from config in the adapters). */
export interface RunLimits {
  /** Replans a run may request before it fails (`FLEX_MAX_REPLANS`). */
  maxReplans: number;
  /** HITL requests a run may raise before it fails (`FLEX_MAX_HITL_REQUESTS`, default 5). */
  maxHitlRequests: number;
}

export const DEFAULT_MAX_HITL_REQUESTS = 5;

/**
 * The one replan bound (`FLEX_MAX_REPLANS`) and its one code, wherever a replan is decided (a
 * policy, an operator, a deferred replan, the planner taking a request): `asked` counts the replan
 * being decided. Undefined while the bound allows it.
 */
export function replanLimitFailure(
  asked: number,
  maxReplans: number,
  who: string,
): { code: 'replan_limit'; reason: string } | undefined {
  if (asked <= maxReplans) return undefined;
  return {
    code: 'replan_limit',
    reason: `${who} asked for replan ${asked}; a run may replan at most ${maxReplans} time(s) (FLEX_MAX_REPLANS)`,
  };
}
