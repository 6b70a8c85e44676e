export * from './run.state';
export { evolveRun } from './run.evolve';
export {
  upstreamOf,
  isStandby,
  readyNodes,
  mainPathComplete,
  topologicalOrder,
  ancestorsOf,
  descendantsOf,
} from './plan.graph';
export {
  facetKey,
  nodeOutputSchema,
  nodeOutputErrors,
  bindingErrors,
  type OutputIssue,
} from './node-contract';
export { facetValuesFor } from './node-view';
export { enforcedConstraintErrors, constraintIssue, constraintRoots } from './node-constraints';
export {
  evaluatePolicies,
  runtimePolicies,
  type PolicyTriggerInput,
  type PolicyFiring,
} from './policy/policy.evaluate';
export { runMetrics, latestOutputs, readMetric } from './policy/run-metrics';
export {
  decideAction,
  decideDeferredReplan,
  decideFirings,
  nextHitlRequestId,
  runSnapshot,
  BLOCKING_ACTIONS,
  type ActionContext,
} from './policy/action.decide';
export { decideHitlFollowUp, decideHitlFollowUps } from './policy/hitl.decide';
export {
  decideHitlResolve,
  decideResume,
  decideManualTrigger,
  resumeDecider,
  withFollowUps,
} from './policy/run-control.decide';
export { firingKey } from './policy/due-firings';
export {
  refuse,
  refusalOf,
  type ControlDecision,
  type Refusal,
  type RefusalCode,
} from './policy/control.decision';
export { foldDecided, type Decided } from './policy/fold';
export { DEFAULT_MAX_HITL_REQUESTS, replanLimitFailure, type RunLimits } from './policy/run-limits';
export { decideCancel, type CancelCommand } from './policy/cancel.decide';
export { decidePause, type PauseCommand } from './policy/pause.decide';
