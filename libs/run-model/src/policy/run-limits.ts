/** Bounds the run model enforces (from config in the adapters). */
export interface RunLimits {
  /** Replans a run may request before it fails (`FLEX_MAX_REPLANS`). */
  maxReplans: number;
  /** HITL requests a run may raise before it fails (`FLEX_MAX_HITL_REQUESTS`, default 5). */
  maxHitlRequests: number;
}

export const DEFAULT_MAX_HITL_REQUESTS = 5;
