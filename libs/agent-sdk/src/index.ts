export type {
  AgentContext,
  AgentDefinition,
  AgentFeedback,
  AgentFeedbackError,
  AgentHandler,
  AgentInvocation,
  AgentInvocationContext,
  AgentResult,
  AgentUsage,
  RegistrationAck,
} from './agent.types';
export { defineAgent, type AgentSpec } from './define-agent';
export { startAgent, type AgentHandle, type StartAgentOptions } from './start-agent';
export {
  AgentError,
  AgentFailedError,
  AgentStoppingError,
  InvalidInputError,
  InvalidOutputError,
  RegistrationRejectedError,
  type AgentErrorOptions,
  type FacetIssue,
} from './errors';
export {
  boundsAt,
  codePointLength,
  effectiveOutputSchema,
  feedbackSchema,
  fitToSchema,
  schemasAt,
  truncateCodePoints,
  type Bounds,
  type SchemaView,
} from './output-contract';
export { jsonLineLogger, silentLogger, type AgentLogger } from './logger';
export { RunLogCollector, RUN_LOG_LIMITS, type AgentLogLine } from './run-log';
