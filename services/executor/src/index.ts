export { ExecutorModule } from './executor.module';
export { decideAdvance } from './run/advance.decide';
export { decideInvocation } from './run/invoke.decide';
export { buildInvocation } from './run/context-builder';
export { composeFinalOutput } from './run/output-composer';
export { executorReplayAdapter, type ExecutorReplaySettings } from './run/executor.replay';
export { retryPolicy, type RetryPolicy } from './run/retry.decide';
export type { PolicyEvaluator } from './run/run.decide';
